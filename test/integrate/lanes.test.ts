/**
 * SPEC §15 "Lanes" (`--lanes`, `--scope GLOB`): tasks whose changes share no path (nor a path under one
 * scope) are checked at the same time in separate lanes; tasks sharing a path stay ordered in one lane.
 * Real git, the board in process: a lane whose check is held does not hold the other lane back, and on
 * random task sets each lane's result is what one-at-a-time gives.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkPlan } from '../../src/core/integration/integration.js';
import { splitLanes } from '../../src/core/integration/integration-lanes.js';
import { resolveDaemonConfig } from '../../src/server/config.js';
import { git } from '../git/repo.js';
import { tempDir } from '../support/ctx.js';
import { waitFor } from '../support/wait-for.js';
import { CHECK, propertyRuns, queued, specs as randomSpecs, type Spec, specFiles } from './board-queue.js';

test('a lane whose check is still running does not hold back a lane that changes other files', async () => {
  const dir = tempDir('coord-lanes-');
  const gate = join(dir, 'gate');
  const log = join(dir, 'checks');
  // Task 0's check waits for the gate; every check leaves a line, so a check run twice shows.
  const check = `echo "$(git log -1 --format=%s)" >> ${log}; if [ -e slow ]; then while [ ! -e ${gate} ]; do sleep 0.02; done; fi`;
  const q = await queued([{ slow: 'x\n', 'src/a.txt': 'a\n' }, { 'src/b.txt': 'b\n' }], {
    check,
    window: 1,
    lanes: true,
    holder: 'lanes true',
  });
  const turn = q.integrator.turn();
  try {
    await waitFor(async () => (await q.state(q.ids[1] as string)) === 'merged', 'task 1 merged', 15_000);
    assert.equal(await q.state(q.ids[0] as string), 'pending', 'task 0 still waits for its check');
  } finally {
    writeFileSync(gate, '');
    await turn;
  }
  assert.equal(await q.state(q.ids[0] as string), 'merged');
  // Task 0 was checked on the target before task 1 landed; it lands on top of it without a second check.
  assert.equal(readFileSync(log, 'utf8').trim().split('\n').length, 2);
  assert.ok(existsSync(join(q.r.main, 'src/a.txt')) && existsSync(join(q.r.main, 'src/b.txt')));
  assert.equal(git(q.r.main, 'status', '--porcelain'), '', 'the checked-out target follows each landing');
});

test('a task that changes the file of a task still being checked waits in its lane, and is checked after it', async () => {
  const dir = tempDir('coord-lanes-');
  const gate = join(dir, 'gate');
  const log = join(dir, 'checks');
  const subject = '$(git log -1 --format=%s | sed "s/.*task //")';
  const check = `echo "start ${subject}" >> ${log}; if [ -e slow ]; then while [ ! -e ${gate} ]; do sleep 0.02; done; fi; echo "end ${subject}" >> ${log}`;
  // Tasks 0 and 1 change two ends of one file (they merge cleanly); task 2 another file.
  const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`);
  const edit = (at: number) => `${lines.map((l, i) => (i === at ? `${l} changed` : l)).join('\n')}\n`;
  const q = await queued([{ slow: 'x\n', 'shared.txt': edit(0) }, { 'shared.txt': edit(11) }, { 'other.txt': 'o\n' }], {
    check,
    window: 1,
    lanes: true,
    holder: 'lanes true',
    base: { 'shared.txt': `${lines.join('\n')}\n` },
    // Window 1 (with room for more checks at once): task 1 is never in task 0's window.
    idleFirst: true,
    jobs: 2,
  });
  const turn = q.integrator.turn();
  try {
    await waitFor(async () => (await q.state(q.ids[2] as string)) === 'merged', 'task 2 merged', 15_000);
  } finally {
    writeFileSync(gate, '');
    await turn;
  }
  for (const id of q.ids) assert.equal(await q.state(id), 'merged');
  const order = readFileSync(log, 'utf8').trim().split('\n');
  assert.ok(order.indexOf('start 1') > order.indexOf('end 0'), `task 1 checked after task 0: ${order.join(', ')}`);
  assert.equal(readFileSync(join(q.r.main, 'shared.txt'), 'utf8'), `${edit(0).replace('line 11', 'line 11 changed')}`);
});

test('tasks that share a path, or paths under one scope, are one lane in their order; others are lanes of their own', () => {
  const tasks = [
    { id: 'a', paths: ['src/x.ts'] },
    { id: 'b', paths: ['docs/y.md'] },
    { id: 'c', paths: ['src/ui/1.ts', 'src/x.ts'] },
    { id: 'd', paths: ['src/ui/2.ts'] },
    { id: 'e', paths: ['README.md'] },
  ];
  const ids = (scopes: string[]) =>
    splitLanes(tasks, (t) => t.paths, scopes).map((lane) => lane.map((t) => t.id).join(''));
  assert.deepEqual(ids([]), ['ac', 'b', 'd', 'e']);
  assert.deepEqual(ids(['src/ui/**']), ['acd', 'b', 'e']);
  assert.deepEqual(ids(['src/ui']), ['acd', 'b', 'e']);
  assert.deepEqual(ids(['*.md', 'docs/**']), ['ac', 'b', 'd', 'e']);
  assert.deepEqual(ids(['**/*.md']), ['ac', 'be', 'd']);
  assert.throws(() => checkPlan({ scope: ['src/**'] }), /--scope goes with --lanes/);
  assert.deepEqual(checkPlan({ lanes: true, jobs: '3' }).maxChecks, 3);
  assert.deepEqual(checkPlan({ lanes: true }).maxChecks, null);
  // `coord serve --integrate` takes the same flags.
  const plan = resolveDaemonConfig({ integrate: true, check: 'true', lanes: true, scope: ['src/ui/**'] }, {}).integrate
    ?.plan;
  assert.deepEqual([plan?.lanes, plan?.scopes], [true, ['src/ui/**']]);
  assert.throws(() => resolveDaemonConfig({ lanes: true }, {}), /go with --integrate/);
});

/** Each task's state, the target's final tree, and for each file the order its tasks landed in. */
async function integrateAll(specs: Spec[], window: number, lanes: boolean) {
  const q = await queued(specFiles(specs), { check: CHECK, window, lanes, holder: `lanes ${lanes}` });
  const states = await q.drain();
  const landed = git(q.r.main, 'log', '--first-parent', '--reverse', '--format=%s', 'main')
    .split('\n')
    .map((s) => /task (\d+)$/.exec(s)?.[1])
    .filter((i) => i !== undefined)
    .map(Number);
  const perFile = Object.fromEntries(['a', 'b', 'c', 'd'].map((f) => [f, landed.filter((i) => specs[i]?.file === f)]));
  return {
    states,
    tree: git(q.r.main, 'rev-parse', 'main^{tree}'),
    perFile,
    clean: git(q.r.main, 'status', '--porcelain'),
  };
}

test('with lanes, each task ends as one-at-a-time leaves it, and each file gets its tasks in the same order', async () => {
  // The fixed set always covers a red task in each of two lanes, a task its red neighbour lets merge and a
  // conflict in one lane.
  const example: [Spec[], number] = [
    [
      { file: 'a', red: true },
      { file: 'a', red: false },
      { file: 'b', red: true },
      { file: 'b', red: false },
      { file: 'a', red: false },
    ],
    2,
  ];
  await propertyRuns(
    fc.tuple(randomSpecs(['a', 'b', 'c', 'd'], 5), fc.integer({ min: 1, max: 3 })),
    example,
    async ([specs, window]) => {
      const serial = await integrateAll(specs, 1, false);
      const laned = await integrateAll(specs, window, true);
      assert.deepEqual(laned.states, serial.states);
      assert.equal(laned.tree, serial.tree);
      assert.deepEqual(laned.perFile, serial.perFile);
      assert.equal(laned.clean, '');
    },
  );
});
