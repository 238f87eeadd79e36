/**
 * SPEC §15 "Speculative window": the result is exactly what one-at-a-time would have merged, in the same
 * order. Property test with real git: random task sets (some on the same file — conflicts, which a red
 * task before them can undo — and some red under the check), merged once with `--window 1` and once with
 * a random window and jobs into two identical repositories; the tasks' states and the target's
 * first-parent line of trees must be the same.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { type CheckingWindow, checkingAfter } from '../../src/core/events.js';
import { operations as op } from '../../src/core/operations.js';
import { Integrator } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { git, testRepo } from '../git/repo.js';
import { harness, makeSqliteStore, tempDir } from '../support/ctx.js';

interface Spec {
  file: string;
  red: boolean;
}

/** A red task adds `red-<i>`, which the check refuses. */
const CHECK = 'test -z "$(ls | grep ^red-)"';

/** The same branches in any repository: one commit each off `main`, with fixed dates (so the same ids). */
function makeBranches(main: string, specs: Spec[]): string[] {
  const from = git(main, 'rev-parse', 'main');
  let stream = '';
  specs.forEach((s, i) => {
    const files = [`M 644 inline src/${s.file}.txt\ndata ${`task ${i}\n`.length}\ntask ${i}\n`];
    if (s.red) files.push(`M 644 inline red-${i}\ndata 4\nred\n`);
    stream += `commit refs/heads/t-${i}\ncommitter t <t@example.com> 1700000000 +0000\ndata 6\ntask ${i}\nfrom ${from}\n${files.join('')}\n`;
  });
  execFileSync('git', ['fast-import', '--quiet'], { cwd: main, input: stream });
  return specs.map((_, i) => git(main, 'rev-parse', `t-${i}`));
}

async function integrateAll(specs: Spec[], window: number, jobs: number) {
  const h = await harness(makeSqliteStore);
  const r = testRepo({ 'README.md': 'base\n' });
  const heads = makeBranches(r.main, specs);
  const ids: string[] = [];
  for (const [i, head] of heads.entries()) {
    const { task } = await h.call(op.createTask, { agent: 'planner', title: `task ${i}` });
    const grant = await h.call(op.claimTask, { task_id: task.id, agent: 'codex#1' });
    await h.call(op.submitResult, {
      task_id: task.id,
      claim_id: grant.claim_id,
      status: 'completed',
      agent: 'codex#1',
    });
    await h.call(op.queueIntegration, { task_id: task.id, branch: `t-${i}`, head });
    ids.push(task.id);
  }
  const i = new Integrator(boardInProcess(h.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: `window ${window}`,
    check: { command: CHECK, timeoutMs: 60_000 },
    window,
    jobs,
  });
  while ((await i.turn()).progressed > 0);
  const states = [];
  for (const id of ids) states.push((await h.call(op.showTask, { task_id: id })).task.integration?.state);
  const trees = git(r.main, 'log', '--first-parent', '--format=%T %P', 'main')
    .split('\n')
    .map((l) => {
      const [tree, ...parents] = l.split(' ');
      return `${tree} parents:${parents.length}`;
    });
  const { events } = await h.call(op.listEvents, { board: 'default', limit: 1000 });
  return { states, trees, clean: git(r.main, 'status', '--porcelain'), ids, events };
}

test('a window merges exactly what one-at-a-time merges, in the same order, whatever the conflicts and red checks', async () => {
  const spec = fc.record({ file: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), red: fc.boolean() });
  await fc.assert(
    fc.asyncProperty(
      fc.array(spec, { minLength: 2, maxLength: 6 }),
      fc.integer({ min: 2, max: 4 }),
      fc.integer({ min: 1, max: 3 }),
      async (specs, window, jobs) => {
        const serial = await integrateAll(specs, 1, 1);
        const windowed = await integrateAll(specs, window, jobs);
        assert.deepEqual(windowed.states, serial.states);
        assert.deepEqual(windowed.trees, serial.trees);
        assert.equal(windowed.clean, '');
      },
    ),
    // CI time (each run integrates its tasks twice with real checks): one fixed set that always covers a red
    // task in a window, the task behind it merged again without it, a conflict its red neighbour undoes, the
    // window halving and growing, and fewer jobs than checks — then two random ones.
    {
      numRuns: 3,
      examples: [
        [
          [
            { file: 'a', red: false },
            { file: 'b', red: true },
            { file: 'b', red: false },
            { file: 'a', red: false },
            { file: 'c', red: true },
            { file: 'c', red: false },
          ],
          3,
          2,
        ],
      ],
    },
  );
});

test('a window publishes the tasks it checks together, in order, before their results; a red one halves the next', async () => {
  const specs: Spec[] = [
    { file: 'a', red: false },
    { file: 'b', red: true },
    { file: 'c', red: false },
  ];
  const run = await integrateAll(specs, 3, 3);
  const [t0, t1, t2] = run.ids;
  const told = run.events
    .filter((e) => ['integration.window', 'task.integrated', 'task.integration'].includes(e.type))
    .map((e) =>
      e.type === 'integration.window'
        ? `window ${(e.data.tasks as string[]).join(',')} size ${e.data.size} on ${e.data.target}`
        : `${e.type === 'task.integrated' ? 'merged' : e.data.state} ${e.task_id}`,
    );
  assert.deepEqual(told, [
    `window ${t0},${t1},${t2} size 3 on main`,
    `merged ${t0}`,
    `check_failed ${t1}`,
    `window ${t2} size 1 on main`,
    `merged ${t2}`,
  ]);
  // What the views show (coord top, the dashboard): the window until each of its tasks is decided.
  let shown: CheckingWindow[] = [];
  const after: string[][] = [];
  for (const e of run.events) {
    shown = checkingAfter(shown, e);
    after.push(shown.flatMap((w) => w.tasks));
  }
  assert.ok(
    after.some((ids) => ids.join() === [t1, t2].join()),
    't0 decided, the rest still checked',
  );
  assert.deepEqual(shown, [], 'cleared once every task is decided');
});
