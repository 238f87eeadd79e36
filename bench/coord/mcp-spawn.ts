/**
 * coord contender, `coord mcp` spawn → initialize answered: spawns `node bin/coord.js
 * mcp --state <dir>` (dist/, with a daemon already serving <dir>, as when an agent
 * starts next to a running daemon), writes `initialize` on its stdin, and stops the
 * clock when the answer (id 1) arrives on stdout. The process is then ended by closing
 * its stdin (untimed), as an MCP client does.
 */
import { spawn } from 'node:child_process';
import { trackChild } from '../lib/child.js';
import { COORD_BIN, ensureDist } from './daemon.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
};

export async function mcpInitializeOnce(stateDir: string): Promise<number> {
  ensureDist();
  const t0 = performance.now();
  const child = spawn(process.execPath, [COORD_BIN, 'mcp', '--state', stateDir], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, COORD_LOG_LEVEL: 'warn' },
  });
  trackChild(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-2000);
  });
  child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  const ms = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
        if (msg.id !== 1) continue;
        if (msg.error) reject(new Error(`coord mcp answered initialize with an error: ${msg.error.message}`));
        else resolve(performance.now() - t0);
        return;
      }
    });
    void exited.then((code) => reject(new Error(`coord mcp exited ${code} before answering: ${err}`)));
  });
  child.stdin.end();
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
  return ms;
}
