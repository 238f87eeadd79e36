/** Real `coord mcp` processes from source, driven by the official SDK client over their stdio. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { COORD, ROOT } from '../support/daemon.js';
import { waitFor } from './harness.js';

export interface StdioAgent {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string;
  call(tool: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean; data: any }>;
  /** Close stdin, as a client quitting does. */
  close(): Promise<void>;
}

export async function startMcp(
  stateDir: string,
  opts: { args?: string[]; env?: Record<string, string>; name?: string } = {},
): Promise<StdioAgent> {
  const [cmd, ...base] = COORD as [string, ...string[]];
  const transport = new StdioClientTransport({
    command: cmd,
    args: [...base, 'mcp', ...(opts.args ?? [])],
    cwd: ROOT,
    env: {
      ...(process.env as Record<string, string>),
      COORD_STATE: stateDir,
      COORD_PORT: '0',
      COORD_LOG_LEVEL: 'warn',
      COORD_BOARD: 'stdio-test',
      ...opts.env,
    },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => {
    err += d;
  });
  const client = new Client({ name: opts.name ?? 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid ?? 0,
    stderr: () => err,
    async call(tool, args = {}) {
      const res = (await client.callTool({ name: tool, arguments: args })) as any;
      return {
        text: String(res.content?.[0]?.text ?? ''),
        isError: res.isError === true,
        data: res._meta?.['coord/data'],
      };
    },
    close: () => client.close(),
  };
}

/** Wait for a line in a `coord mcp`'s stderr; on timeout, show what it did say. */
export async function waitForLog(agent: StdioAgent, text: string): Promise<void> {
  await waitFor(() => agent.stderr().includes(text), `"${text}" from coord mcp`).catch((e: Error) => {
    throw new Error(`${e.message}; its stderr:\n${agent.stderr()}`);
  });
}

export interface DaemonHandle {
  pid: number;
  url: string;
  token: string;
  fetch(path: string): Promise<any>;
}

export function daemonOf(stateDir: string): DaemonHandle {
  const info = JSON.parse(readFileSync(join(stateDir, 'daemon.json'), 'utf8')) as { pid: number; url: string };
  const token = readFileSync(join(stateDir, 'token'), 'utf8').trim();
  return {
    ...info,
    token,
    async fetch(path) {
      const res = await fetch(info.url + path, { headers: { authorization: `Bearer ${token}` } });
      return res.json();
    },
  };
}

/** Is `pid` running? A zombie is not (its parent, a `coord mcp` that exited, may never reap it). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    if (process.platform === 'linux') return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stop the daemon a `coord mcp` started in the background, and wait until it is gone. */
export async function stopDaemon(stateDir: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  let pid: number;
  try {
    pid = daemonOf(stateDir).pid;
  } catch {
    return;
  }
  if (alive(pid)) process.kill(pid, signal);
  await waitFor(() => !alive(pid), `daemon ${pid} to exit`);
}
