/**
 * SPEC §5: a repository is one board, whatever work tree an agent sits in. A real client started in a
 * linked worktree (`git worktree add`) reads, through its model, the task posted from the main one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { CLIENT_NAMES, coordText, setUpAgent, startAgent, startFake, toolName } from './clients.js';
import { coord, describeRun, makeRepo, tempDir } from './support.js';

describe('a real client in a linked worktree shares the main worktree board', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENT_NAMES) {
    it(`${client}: started in a linked worktree, its model sees the task posted from the main worktree`, async (t) => {
      const main = makeRepo(`coord-agent-wt-${client}-`);
      const linked = join(realpathSync(tempDir(`coord-agent-linked-${client}-`)), 'feature');
      execFileSync('git', ['worktree', 'add', '-q', '-b', 'feature', linked], { cwd: main, stdio: 'ignore' });
      const agent = await setUpAgent(client, linked, daemon.stateDir);
      if (agent.setup.stderr.includes(`unknown client "${client}"`)) {
        t.skip(`coord setup ${client} does not exist yet`);
        return;
      }
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
      const posted = await coord(['post', 'Review the retry loop in the main tree', '--json'], {
        cwd: main,
        env: agent.env,
      });
      assert.equal(posted.code, 0, describeRun(posted));
      const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;

      const fake = await startFake(client, [{ tool: toolName(client, 'inbox'), args: {} }, { say: 'done' }]);
      try {
        const run = await startAgent(agent, fake, linked, 'Check your coord inbox.').done;
        assert.equal(run.code, 0, describeRun(run));
        const seen = fake
          .results()
          .filter((r) => r.tool.includes('coord'))
          .map((r) => coordText(client, r));
        const last = seen[seen.length - 1] ?? '';
        t.diagnostic(`${client} in ${linked}: ${JSON.stringify(last)}`);
        assert.match(last, new RegExp(`#${id} `), `the model in the linked worktree read: ${JSON.stringify(seen)}`);
      } finally {
        await fake.close();
      }
    });
  }
});
