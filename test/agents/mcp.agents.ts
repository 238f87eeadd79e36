/**
 * SPEC §5, seen from the real Claude Code: its opening `server/discover` probe (protocol 2026-07-28)
 * gets no error logged by `coord mcp` before Claude Code falls back to `initialize`; and an MCP session
 * over Streamable HTTP whose client exits without `DELETE /mcp` (Claude Code sends none) has its claim
 * freed within the grace period, long before its lease would end — and the same for Gemini CLI.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { type Agent, argv, modelEnv, setUpAgent, startAgent, startFake } from './clients.js';
import { cleanEnv, clientBin, coord, describeRun, isolatedHome, makeRepo, run, start, tempDir } from './support.js';

describe('Claude Code and coord MCP', () => {
  it('Claude Code opens coord mcp (server/discover, then initialize) and coord mcp logs nothing to its stderr', async () => {
    const daemon = await spawnDaemon();
    try {
      const repo = makeRepo('coord-agent-discover-');
      const agent = await setUpAgent('claude', repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
      const fake = await startFake('claude', [{ tool: 'mcp__coord__who', args: {} }, { say: 'done' }]);
      const debugLog = join(tempDir('coord-agent-debug-'), 'claude.log');
      try {
        const r = await start(
          clientBin('claude'),
          [...argv('claude', fake, 'Who is here?'), '--debug-file', debugLog],
          {
            cwd: repo,
            env: { ...agent.env, ...modelEnv('claude', fake) },
            timeoutMs: 180_000,
          },
        ).done;
        assert.equal(r.code, 0, describeRun(r));
      } finally {
        await fake.close();
      }
      // Claude Code's debug log quotes every line an MCP server writes to stderr ("Server stderr: …",
      // "stderr of the stdio server before restarting it: …") and every failed connection.
      const lines = readFileSync(debugLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes('MCP server "coord"'));
      assert.ok(
        lines.some((l) => l.includes('Connection established')),
        `coord connected: ${lines.join('\n')}`,
      );
      const bad = lines.filter((l) => /stderr|\[ERROR\]|failed/i.test(l));
      assert.deepEqual(bad, [], 'coord mcp wrote to stderr or the connection failed');
      assert.ok(
        fake.results().some((x) => x.tool === 'mcp__coord__who' && !x.isError),
        JSON.stringify(fake.results()),
      );
    } finally {
      await daemon.stop();
    }
  });

  it('a Claude Code MCP-over-HTTP session that exits without DELETE /mcp has its claim freed within the grace period', async () => {
    const daemon = await spawnDaemon({ env: { COORD_MCP_GRACE_MS: '1500' } });
    try {
      const repo = makeRepo('coord-agent-http-');
      const agent = await setUpAgent('claude', repo, daemon.stateDir);
      // Claude Code configured for coord over HTTP, by its own CLI (coord setup writes the stdio server).
      await run(clientBin('claude'), ['mcp', 'remove', '--scope', 'user', 'coord'], { cwd: repo, env: agent.env });
      const added = await run(
        clientBin('claude'),
        [
          'mcp',
          'add',
          '--scope',
          'user',
          '--transport',
          'http',
          'coord',
          `${daemon.url}/mcp?board=default&agent=claude-http`,
          '--header',
          `Authorization: Bearer ${daemon.token}`,
        ],
        { cwd: repo, env: agent.env },
      );
      assert.equal(added.code, 0, describeRun(added));
      const posted = await coord(['post', 'Take me over HTTP', '--board', 'default', '--json'], {
        cwd: repo,
        env: agent.env,
      });
      assert.equal(posted.code, 0, describeRun(posted));
      const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
      const state = async () => {
        const res = await daemon.fetch(`/v1/tasks/${id}?board=default`);
        return ((await res.json()) as { task: { state: string } }).task.state;
      };
      let whileRunning = '';
      const fake = await startFake('claude', [
        { tool: 'mcp__coord__claim_task', args: { task_id: id, lease_s: 3600 } },
        {
          say: 'done',
          before: async () => {
            whileRunning = await state();
          },
        },
      ]);
      try {
        const r = await start(clientBin('claude'), argv('claude', fake, `Claim #${id}.`), {
          cwd: repo,
          env: { ...agent.env, ...modelEnv('claude', fake) },
          timeoutMs: 180_000,
        }).done;
        assert.equal(r.code, 0, describeRun(r));
      } finally {
        await fake.close();
      }
      const claimed = fake.results().find((x) => x.tool === 'mcp__coord__claim_task');
      assert.match(claimed?.text ?? '', new RegExp(`^claimed: #${id}`), JSON.stringify(fake.results()));
      assert.equal(whileRunning, 'claimed');
      // The lease runs an hour; the claim goes back to the queue once the session's stream has stayed
      // closed for the grace period (1.5 s here). The deadline is only a bound for a hung test.
      await waitFor(async () => (await state()) === 'queued', 'the HTTP session claim freed', 60_000);
    } finally {
      await daemon.stop();
    }
  });
  it('a Gemini CLI MCP-over-HTTP session that exits without DELETE /mcp has its claim freed within the grace period', async () => {
    const daemon = await spawnDaemon({ env: { COORD_MCP_GRACE_MS: '1500' } });
    try {
      const repo = makeRepo('coord-agent-http-gemini-');
      // Gemini CLI configured for coord over HTTP in its own settings (coord setup writes the stdio server).
      const home = isolatedHome('coord-agent-gemini-http-');
      mkdirSync(join(home, '.gemini'), { recursive: true });
      const url = `${daemon.url}/mcp?board=default&agent=gemini-http`;
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          mcpServers: { coord: { httpUrl: url, headers: { Authorization: `Bearer ${daemon.token}` }, trust: true } },
        }),
      );
      const agent: Agent = {
        client: 'gemini',
        home,
        env: cleanEnv(home, { COORD_STATE: daemon.stateDir }),
        setup: { code: 0, signal: null, stdout: '', stderr: '', timedOut: false, ms: 0 },
      };
      const posted = await coord(['post', 'Take me over HTTP too', '--board', 'default', '--json'], {
        cwd: repo,
        env: agent.env,
      });
      assert.equal(posted.code, 0, describeRun(posted));
      const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
      const state = async () => {
        const res = await daemon.fetch(`/v1/tasks/${id}?board=default`);
        return ((await res.json()) as { task: { state: string } }).task.state;
      };
      let whileRunning = '';
      const fake = await startFake('gemini', [
        { tool: 'mcp_coord_claim_task', args: { task_id: id, lease_s: 3600 } },
        {
          say: 'done',
          before: async () => {
            whileRunning = await state();
          },
        },
      ]);
      try {
        const r = await startAgent(agent, fake, repo, `Claim #${id}.`).done;
        assert.equal(r.code, 0, describeRun(r));
      } finally {
        await fake.close();
      }
      const claimed = fake.results().find((x) => x.tool === 'mcp_coord_claim_task');
      assert.match(claimed?.text ?? '', new RegExp(`claimed: #${id}`), JSON.stringify(fake.results()));
      assert.equal(whileRunning, 'claimed');
      await waitFor(async () => (await state()) === 'queued', 'the HTTP session claim freed', 60_000);
    } finally {
      await daemon.stop();
    }
  });
});
