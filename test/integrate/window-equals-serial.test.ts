/**
 * SPEC §15 "Speculative window": the result is exactly what one-at-a-time would have merged, in the same
 * order. Property test with real git: random task sets (some on the same file — conflicts, which a red
 * task before them can undo — and some red under the check), merged once with `--window 1` and once with
 * a random window and jobs into two identical repositories; the tasks' states and the target's
 * first-parent line of trees must be the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type CheckingWindow, checkingAfter } from '../../src/core/events.js';
import { operations as op } from '../../src/core/operations.js';
import { git } from '../git/repo.js';
import { CHECK, propertyRuns, queued, specs as randomSpecs, type Spec, specFiles } from './board-queue.js';

async function integrateAll(specs: Spec[], window: number, jobs: number) {
  const q = await queued(specFiles(specs), { check: CHECK, window, jobs, holder: `window ${window}` });
  const states = await q.drain();
  const trees = git(q.r.main, 'log', '--first-parent', '--format=%T %P', 'main')
    .split('\n')
    .map((l) => {
      const [tree, ...parents] = l.split(' ');
      return `${tree} parents:${parents.length}`;
    });
  const { events } = await q.h.call(op.listEvents, { board: 'default', limit: 1000 });
  return { states, trees, clean: git(q.r.main, 'status', '--porcelain'), ids: q.ids, events };
}

test('a window merges exactly what one-at-a-time merges, in the same order, whatever the conflicts and red checks', async () => {
  // The fixed set always covers a red task in a window, the task behind it merged again without it, a conflict
  // its red neighbour undoes, the window halving and growing, and fewer jobs than checks.
  const example: [Spec[], number, number] = [
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
  ];
  const arb = fc.tuple(
    randomSpecs(['a', 'b', 'c', 'd', 'e', 'f'], 6),
    fc.integer({ min: 2, max: 4 }),
    fc.integer({ min: 1, max: 3 }),
  );
  await propertyRuns(arb, example, async ([specs, window, jobs]) => {
    const serial = await integrateAll(specs, 1, 1);
    const windowed = await integrateAll(specs, window, jobs);
    assert.deepEqual(windowed.states, serial.states);
    assert.deepEqual(windowed.trees, serial.trees);
    assert.equal(windowed.clean, '');
  });
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
