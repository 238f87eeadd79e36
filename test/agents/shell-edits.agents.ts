/**
 * SPEC §10 "Shell edits are seen too", with the real clients set up by `coord setup <client> --write`:
 * the model runs a shell command that changes a file another agent holds; the model is told
 * `lock_conflict: your command changed src/a.ts, which alice holds — restore it (git restore src/a.ts)…`,
 * and a free file the same command changed is auto-locked for the session's agent. The plugin clients
 * (OpenCode, Kilo, Cline, Pi) run the same check from coord's plugin around their shell tool.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { setUpAgent, startAgent, startFake, toolName } from './clients.js';
import { startFakeChat } from './fake-chat.js';
import { coordTool, type NewClient, setUpNew, startNew, stopClineHubs } from './new-clients.js';
import { type ClientName, coord, describeRun, makeRepo } from './support.js';

interface Who {
  agents: { name: string; locks: string[] }[];
}

const SHELL: Partial<Record<ClientName, (command: string) => { tool: string; args: Record<string, unknown> }>> = {
  claude: (command) => ({ tool: 'Bash', args: { command, description: 'edit from the shell' } }),
  gemini: (command) => ({ tool: 'run_shell_command', args: { command, description: 'edit from the shell' } }),
};

describe('real clients: shell edits are seen too', () => {
  let daemon: SpawnedDaemon;
  before(async () => {
    daemon = await spawnDaemon();
  });
  after(async () => {
    await daemon.stop();
  });

  for (const client of ['claude', 'gemini'] as const) {
    it(`${client}: a shell command that changes a file another agent holds is reported to the model with lock_conflict and the restore hint; the free file it changed is auto-locked`, async (t) => {
      const repo = makeRepo(`coord-agent-shell-${client}-`);
      const agent = await setUpAgent(client, repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
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
      const turns = fake.turns();
      const told = JSON.stringify(turns.map((x) => x.body));
      const m =
        /lock_conflict: your command changed src\/a\.ts, which alice holds — restore it \(git restore src\/a\.ts\)/.exec(
          told,
        );
      t.diagnostic(`${client}: ${m ? m[0] : told.slice(-2000)}`);
      assert.ok(m, `the model was told: ${told.slice(-3000)}`);
      const holders = who.agents.filter((a) => a.locks.includes('src/b.ts')).map((a) => a.name);
      assert.equal(holders.length, 1, JSON.stringify(who));
      assert.notEqual(holders[0], 'alice');
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
  let daemon: SpawnedDaemon;
  before(async () => {
    daemon = await spawnDaemon();
  });
  after(async () => {
    await daemon.stop();
  });

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
      const told = JSON.stringify(fake.turns().map((x) => x.body));
      const m =
        /lock_conflict: your command changed src\/a\.ts, which alice holds — restore it \(git restore src\/a\.ts\)/.exec(
          told,
        );
      t.diagnostic(`${client}: ${m ? m[0] : told.slice(-2000)}`);
      assert.ok(m, `the model was told: ${told.slice(-3000)}`);
      const holders = who.agents.filter((a) => a.locks.includes('src/b.ts')).map((a) => a.name);
      assert.equal(holders.length, 1, JSON.stringify(who));
      assert.notEqual(holders[0], 'alice');
    });
  }
});
