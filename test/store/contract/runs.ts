/**
 * SPEC §18: a supervisor's reports of its agent processes — listed by `list_runs` (GET /v1/runs) as plain
 * data, each change appended once to the board's log as `agent.launched`, `agent.state`, `task.paused` and
 * `agent.exited {code, submitted}`, with payloads the catalogue accepts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { payloadSchema } from '../../../src/core/events.js';
import type { AgentRun } from '../../../src/core/runs/supervision.js';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op } from './board.js';

export function runsContract(make: MakeStore): void {
  describe('supervised agent runs', () => {
    const board = freshBoard(make);

    test('each change of a reported run is one event, and the list shows the run as last reported', async () => {
      const b = board();
      const task = await b.post('alice');
      const at = new Date().toISOString();
      const run: AgentRun = {
        agent: 'claude#k3x9',
        board: task.board,
        client: 'claude',
        pid: null,
        task_id: task.id,
        worktree: '/repo.worktrees/x',
        branch: `coord/${task.id}-x`,
        state: 'starting',
        since: at,
        started_at: at,
        usage: null,
        paused_until: null,
        attempt: 1,
        supervisor: 'coord run (pid 1 on host)',
        exit_code: null,
        submitted: false,
      };
      const steps: AgentRun[] = [
        run,
        { ...run, pid: 4242 },
        { ...run, pid: 4242, state: 'working' },
        { ...run, pid: 4242, state: 'working' },
        { ...run, pid: 4242, state: 'paused', paused_until: '2026-12-03T12:00:00.000Z' },
        {
          ...run,
          pid: 4242,
          state: 'exited',
          exit_code: 0,
          submitted: true,
          usage: { input_tokens: 30, output_tokens: 15, wall_s: 3.5 },
        },
      ];
      for (const s of steps) await b.call(op.reportRun, s);
      const events = (await b.call(op.listEvents, { limit: 1000 })).events.filter(
        (e) => e.type.startsWith('agent.') || e.type === 'task.paused',
      );
      assert.deepEqual(
        events.map((e) => [e.type, e.agent, e.task_id]),
        [
          ['agent.launched', run.agent, task.id],
          ['agent.state', run.agent, task.id],
          ['agent.state', run.agent, task.id],
          ['task.paused', run.agent, task.id],
          ['agent.exited', run.agent, task.id],
        ],
      );
      for (const e of events) payloadSchema(e.type).parse(e.data);
      assert.deepEqual(events.at(-1)?.data, {
        code: 0,
        submitted: true,
        usage: { input_tokens: 30, output_tokens: 15, wall_s: 3.5 },
      });
      const { runs } = await b.call(op.listRuns, { board: task.board });
      assert.equal(runs.length, 1);
      assert.equal(runs[0]?.state, 'exited');
      assert.equal(runs[0]?.pid, 4242);
    });

    test("an exited run's usage is added to its task once, and a retried task's usage is the sum of its tries", async () => {
      const b = board();
      const task = await b.post('alice');
      const other = await b.post('alice');
      assert.equal((await b.call(op.showTask, { task_id: task.id })).task.usage, undefined);
      const at = new Date().toISOString();
      const run: AgentRun = {
        agent: 'claude#u1',
        board: task.board,
        client: 'claude',
        pid: 77,
        task_id: task.id,
        worktree: '/repo.worktrees/u',
        branch: `coord/${task.id}-u`,
        state: 'working',
        since: at,
        started_at: at,
        usage: null,
        paused_until: null,
        attempt: 1,
        supervisor: 'coord run (pid 1 on host)',
        exit_code: null,
        submitted: false,
      };
      const first = {
        ...run,
        state: 'exited' as const,
        exit_code: 1,
        usage: { input_tokens: 100, output_tokens: 40, wall_s: 2.5 },
      };
      await b.call(op.reportRun, run);
      await b.call(op.reportRun, first);
      await b.call(op.reportRun, first); // the same exit reported again adds nothing
      const second = {
        ...run,
        agent: 'claude#u2',
        attempt: 2,
        state: 'exited' as const,
        exit_code: 0,
        submitted: true,
        usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.25, wall_s: 1 },
      };
      await b.call(op.reportRun, second);
      await b.call(op.reportRun, second);
      // A run still working, or exited without usage, adds nothing.
      await b.call(op.reportRun, {
        ...run,
        agent: 'claude#u3',
        attempt: 3,
        usage: { input_tokens: 9, output_tokens: 9, wall_s: 9 },
      });
      await b.call(op.reportRun, { ...run, agent: 'claude#u4', attempt: 4, state: 'exited', exit_code: 1 });
      assert.deepEqual((await b.call(op.showTask, { task_id: task.id })).task.usage, {
        input_tokens: 110,
        output_tokens: 45,
        cost_usd: 0.25,
        wall_s: 3.5,
      });
      assert.equal((await b.call(op.showTask, { task_id: other.id })).task.usage, undefined);
      const listed = (await b.call(op.listTasks, {})).tasks.find((t) => t.id === task.id);
      assert.equal(listed?.usage?.input_tokens, 110);
    });
  });
}
