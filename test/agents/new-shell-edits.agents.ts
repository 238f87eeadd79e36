/**
 * SPEC §10 "Shell edits are seen too" with the clients of SPEC §17 that have hooks of their own, set up by
 * `coord setup <client> --write` alone: GitHub Copilot CLI (command hooks in Claude Code's format, around its
 * `bash` tool) and Qwen Code (`http` hooks around `run_shell_command`, answered by the daemon). The model runs
 * a shell command that changes a file another agent holds and a free one: it is told `lock_conflict: your
 * command changed src/a.ts, which alice holds — restore it (git restore src/a.ts)…`, and the free file becomes
 * the session's agent's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { startFakeChat } from './fake-chat.js';
import { coordTool, type NewClient, setUpNew, startNew } from './new-clients.js';
import { assertShellEditTold, type Who } from './shell-edit-checks.js';
import { coord, describeRun, makeRepo } from './support.js';

const SHELL: Partial<Record<NewClient, string>> = { copilot: 'bash', qwen: 'run_shell_command' };

describe('real clients of SPEC §17: shell edits are seen too', () => {
  const daemon = suiteDaemon();

  for (const client of ['copilot', 'qwen'] as const) {
    it(`${client}: a shell command that changes a file another agent holds is reported to the model with lock_conflict and the restore hint; the free file it changed is auto-locked`, async (t) => {
      const repo = makeRepo(`coord-agent-shell-${client}-`);
      const agent = await setUpNew(client, repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
      if (client === 'qwen') {
        const settings = JSON.parse(readFileSync(join(agent.home, '.qwen', 'settings.json'), 'utf8'));
        const types = ['PreToolUse', 'PostToolUse'].map(
          (e) => settings.hooks[e].find((g: { matcher?: string }) => g.matcher === SHELL.qwen)?.hooks[0]?.type,
        );
        assert.deepEqual(types, ['http', 'http'], 'user scope: the shell hooks are http hooks');
      }
      const held = await coord(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--json'], {
        cwd: repo,
        env: agent.env,
      });
      assert.equal(held.code, 0, describeRun(held));
      let who: Who = { agents: [] };
      const fake = await startFakeChat([
        { tool: SHELL[client] ?? '', args: { command: "sed -i 's/1/2/' src/a.ts src/b.ts", description: 'sed' } },
        {
          tool: coordTool(client, 'who'),
          args: {},
          before: async () => {
            who = JSON.parse((await coord(['who', '--json'], { cwd: repo, env: agent.env })).stdout) as Who;
          },
        },
        { say: 'done' },
      ]);
      try {
        const run = await startNew(agent, fake, repo, 'Set a and b to 2 with sed.').done;
        assert.equal(run.code, 0, describeRun(run));
      } finally {
        await fake.close();
      }
      assertShellEditTold(t, client, fake, who, () => JSON.stringify(fake.results()).slice(0, 1500));
      // The shell hooks' agent is the session's own (its MCP server's `who` marks it "(you)").
      const mine = fake
        .results()
        .find((r) => /\(you\)/.test(r.text))
        ?.text.split('\n')
        .find((l) => l.includes('(you)'));
      assert.match(mine ?? '', /locks src\/b\.ts/, JSON.stringify(fake.results()));
    });
  }
});
