/**
 * SPEC §10 "Shell edits are seen too", with the real clients set up by `coord setup <client> --write`:
 * the model runs a shell command that changes a file another agent holds; the model is told
 * `lock_conflict: your command changed src/a.ts, which alice holds — restore it (git restore src/a.ts)…`,
 * and a free file the same command changed is auto-locked for the session's agent. The plugin clients
 * (OpenCode, Kilo, Cline, Pi) run the same check from coord's plugin around their shell tool.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnDaemon } from '../support/daemon.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { argv, modelEnv, setUpAgent, startAgent, startFake, toolName } from './clients.js';
import { startFakeChat } from './fake-chat.js';
import { coordTool, type NewClient, setUpNew, startNew, stopClineHubs } from './new-clients.js';
import { assertShellEditTold, type Who } from './shell-edit-checks.js';
import { type ClientName, clientBin, coord, describeRun, makeRepo, start, tempDir } from './support.js';

const SHELL: Partial<Record<ClientName, (command: string) => { tool: string; args: Record<string, unknown> }>> = {
  claude: (command) => ({ tool: 'Bash', args: { command, description: 'edit from the shell' } }),
  gemini: (command) => ({ tool: 'run_shell_command', args: { command, description: 'edit from the shell' } }),
  // Codex 0.171's shell tool; its hooks see it as `Bash` with tool_input.command.
  codex: (command) => ({ tool: 'exec_command', args: { cmd: command } }),
};

describe('real clients: shell edits are seen too', () => {
  const daemon = suiteDaemon();

  for (const client of ['claude', 'codex', 'gemini'] as const) {
    it(`${client}: a shell command that changes a file another agent holds is reported to the model with lock_conflict and the restore hint; the free file it changed is auto-locked`, async (t) => {
      const repo = makeRepo(`coord-agent-shell-${client}-`);
      const agent = await setUpAgent(client, repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
      if (client === 'claude') {
        // User scope: the Bash hooks are http hooks answered by the daemon (no process per shell call).
        const settings = JSON.parse(readFileSync(join(agent.home, '.claude', 'settings.json'), 'utf8'));
        const types = ['PreToolUse', 'PostToolUse'].map(
          (e) => settings.hooks[e].find((g: { matcher?: string }) => g.matcher === 'Bash')?.hooks[0]?.type,
        );
        assert.deepEqual(types, ['http', 'http']);
      }
      const held = await coord(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--json'], {
        cwd: repo,
        env: agent.env,
      });
      assert.equal(held.code, 0, describeRun(held));
      let who: Who = { agents: [] };
      const fake = await startFake(client, [
        SHELL[client]!("sed -i 's/1/2/' src/a.ts src/b.ts"),
        {
          tool: toolName(client, 'who'),
          args: {},
          // While the session lives (its auto-locks die with it).
          before: async () => {
            who = JSON.parse((await coord(['who', '--json'], { cwd: repo, env: agent.env })).stdout) as Who;
          },
        },
        { say: 'done' },
      ]);
      try {
        const extra = client === 'claude' ? { extraArgs: ['--allowedTools', 'mcp__coord,Read,Edit,Write,Bash'] } : {};
        const run = await startAgent(agent, fake, repo, 'Set a and b to 2 with sed.', extra).done;
        assert.equal(run.code, 0, describeRun(run));
      } finally {
        await fake.close();
      }
      assertShellEditTold(t, client, fake, who);
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

/** The plugin clients' shell tools, as their models call them. */
const PLUGIN_SHELL: Record<
  'opencode' | 'kilo' | 'cline' | 'pi',
  (command: string) => { tool: string; args: Record<string, unknown> }
> = {
  opencode: (command) => ({ tool: 'bash', args: { command, description: 'edit from the shell' } }),
  kilo: (command) => ({ tool: 'bash', args: { command, description: 'edit from the shell' } }),
  cline: (command) => ({ tool: 'run_commands', args: { commands: [command] } }),
  pi: (command) => ({ tool: 'bash', args: { command } }),
};

describe('real plugin clients: shell edits are seen too', () => {
  const daemon = suiteDaemon();

  for (const client of ['opencode', 'kilo', 'cline', 'pi'] as const satisfies NewClient[]) {
    it(`${client}: a shell command that changes a file another agent holds is reported to the model with lock_conflict and the restore hint; the free file it changed is auto-locked`, async (t) => {
      const repo = makeRepo(`coord-agent-shell-${client}-`);
      const agent = await setUpNew(client, repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
      const cli = (args: string[]) => coord(args, { cwd: repo, env: agent.env });
      const held = await cli(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--json']);
      assert.equal(held.code, 0, describeRun(held));
      let who: Who = { agents: [] };
      const fake = await startFakeChat([
        PLUGIN_SHELL[client]("sed -i 's/1/2/' src/a.ts src/b.ts"),
        {
          tool: coordTool(client, 'who'),
          args: {},
          before: async () => {
            who = JSON.parse((await cli(['who', '--json'])).stdout) as Who;
          },
        },
        { say: 'done' },
      ]);
      try {
        const run = await startNew(agent, fake, repo, 'Set a and b to 2 with sed.').done;
        assert.equal(run.code, 0, describeRun(run));
      } finally {
        await fake.close();
        if (client === 'cline') stopClineHubs(agent.home);
      }
      assertShellEditTold(t, client, fake, who);
    });
  }
});

describe('real clients: with the daemon down the http shell hooks fail open', () => {
  it('claude: with no daemon (the connection refused) the Bash command runs, its output reaches the model, and nothing blocks it', async (t) => {
    const daemon = await spawnDaemon();
    const repo = makeRepo('coord-agent-shell-down-');
    const agent = await setUpAgent('claude', repo, daemon.stateDir);
    assert.equal(agent.setup.code, 0, describeRun(agent.setup));
    await daemon.stop();
    const fake = await startFake('claude', [
      SHELL.claude!("sed -i 's/1/2/' src/a.ts && echo sed-ran"),
      { say: 'done' },
    ]);
    const debugLog = join(tempDir('coord-agent-debug-'), 'claude.log');
    try {
      const run = await start(
        clientBin('claude'),
        // --strict-mcp-config with no --mcp-config: no coord mcp, so nothing starts a daemon again.
        [...argv('claude', fake, 'Set a to 2 with sed.', ['Bash']), '--strict-mcp-config', '--debug-file', debugLog],
        { cwd: repo, env: { ...agent.env, ...modelEnv('claude', fake) }, timeoutMs: 180_000 },
      ).done;
      assert.equal(run.code, 0, describeRun(run));
    } finally {
      await fake.close();
    }
    const bash = fake.results().find((r) => r.tool === 'Bash');
    assert.ok(bash, JSON.stringify(fake.results()));
    assert.match(bash.text, /sed-ran/, 'the command ran and the model read its output');
    assert.equal(bash.isError, false, bash.text);
    // Nothing about the hooks reached the model (a block, or a hook's error as context).
    const later = JSON.stringify(fake.turns().at(-1)?.body ?? '')
      .split('sed-ran')
      .slice(1)
      .join('');
    assert.doesNotMatch(later, /lock_conflict: your command|PostToolUse:Bash hook/);
    assert.match(readFileSync(join(repo, 'src/a.ts'), 'utf8'), /2/);
    const failed = readFileSync(debugLog, 'utf8')
      .split('\n')
      .filter((l) => /HTTP hook error/.test(l));
    t.diagnostic(`claude: ${JSON.stringify(failed.slice(0, 2))}`);
    assert.equal(failed.length, 2, 'both http hooks ran and failed (refused), and neither blocked');
  });
});
