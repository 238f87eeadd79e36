/**
 * SPEC §5: `coord mcp` answers every protocol version the current clients send without logging an error:
 * Claude Code probes with `server/discover` (2026-07-28), then falls back to `initialize` at 2025-11-25;
 * Codex and Gemini CLI initialize at 2025-06-18.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT } from '../support/daemon.js';
import { CORE_TOOLS, LEAN_TOOLS, SPEC_TOOLS } from './spec-tools.js';
import { stopDaemon } from './stdio-support.js';

const DISCOVER_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.332' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function handshake(state: string, opening: object[]): Promise<{ answers: any[]; stderr: string }> {
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base, 'mcp'], {
    cwd: ROOT,
    env: childEnv({ COORD_STATE: state, COORD_PORT: '0', COORD_LOG_LEVEL: 'warn', COORD_BOARD: 'proto' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const answers: any[] = [];
  for (const m of opening) {
    child.stdin.write(`${JSON.stringify(m)}\n`);
    if (!('id' in m)) continue;
    const next = await lines.next();
    answers.push(JSON.parse(String(next.value)));
  }
  child.stdin.end();
  await new Promise((r) => child.once('close', r));
  return { answers, stderr };
}

const initialize = (id: number, protocolVersion: string, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name, version: '1' } },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

test("Claude Code's server/discover probe is answered 'method not found' with nothing logged, and its initialize at 2025-11-25 then works", async () => {
  const state = tempDir('coord-proto-');
  try {
    const { answers, stderr } = await handshake(state, [
      { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: DISCOVER_META } },
      initialize(1, '2025-11-25', 'claude-code'),
      initialized,
      listTools(2),
    ]);
    assert.equal(answers[0].error.code, -32601);
    assert.equal(answers[1].result.protocolVersion, '2025-11-25');
    assert.equal(answers[2].result.tools.length, SPEC_TOOLS.length);
    assert.doesNotMatch(stderr, /could not relay|error/i, stderr);
  } finally {
    await stopDaemon(state);
  }
});

test('Codex and Gemini CLI initialize at 2025-06-18 and are answered in that version', async () => {
  const state = tempDir('coord-proto-');
  try {
    for (const name of ['codex-mcp-client', 'gemini-cli-mcp-client']) {
      const { answers, stderr } = await handshake(state, [
        initialize(1, '2025-06-18', name),
        initialized,
        listTools(2),
      ]);
      assert.equal(answers[0].result.protocolVersion, '2025-06-18', name);
      // SPEC §17: neither defers tools, so each is offered the core set (Gemini CLI, which adds bytes of
      // its own to every tool, its lean part).
      assert.deepEqual(
        answers[1].result.tools.map((t: { name: string }) => t.name).sort(),
        [...(name === 'gemini-cli-mcp-client' ? LEAN_TOOLS : CORE_TOOLS)].sort(),
        name,
      );
      assert.doesNotMatch(stderr, /could not relay|error/i, stderr);
    }
  } finally {
    await stopDaemon(state);
  }
});
