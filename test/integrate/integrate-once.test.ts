/**
 * SPEC §15 "Exit codes": `coord integrate --once` exits 0 when every task it looked at merged (or nothing
 * was ready) and 2 when any ended in conflict, check_failed or blocked; `--json` prints
 * `{results: [{task_id, state, commit?, reason?, followup?}]}`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { branches, integrate, queueTasks, testRepo } from './queue-fixture.js';

let d: SpawnedDaemon;
before(async () => {
  d = await spawnDaemon();
});
after(() => d?.stop());

interface Out {
  results: { task_id: string; state: string; commit?: string; reason?: string; followup?: string }[];
}

test('--once exits 2 with a failed check in its --json results, and 0 when nothing is ready', async () => {
  const r = testRepo();
  const tasks = await queueTasks(d, 'once', branches(r, 'o', 2));
  // o-1 adds files/o-1.txt, which the check refuses.
  const run = await integrate(d, 'once', r.main, ['--once', '--json', '--check', 'test ! -e files/o-1.txt']).done;
  assert.equal(run.code, 2, run.stderr);
  const out = JSON.parse(run.stdout) as Out;
  const [ok, failed] = out.results;
  assert.deepEqual(ok, { task_id: tasks[0]?.id, state: 'merged', commit: r.rev('main') });
  assert.equal(failed?.task_id, tasks[1]?.id);
  assert.equal(failed?.state, 'check_failed');
  assert.match(failed?.reason ?? '', /failed \(exit 1\)/);
  assert.ok(failed?.followup);

  const again = await integrate(d, 'once', r.main, ['--once', '--json']).done;
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual((JSON.parse(again.stdout) as Out).results, []);
});

test('--once exits 0 when every task it looked at merged', async () => {
  const r = testRepo();
  await queueTasks(d, 'once-ok', branches(r, 'p', 2));
  const run = await integrate(d, 'once-ok', r.main, ['--once']).done;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /merged into main/);
});

test('--jobs 0 and a window of 0 are refused as usage errors; a window larger than the queue merges what there is', async () => {
  const r = testRepo();
  const queued = await queueTasks(d, 'once-bad', branches(r, 'q', 2));
  const jobs = await integrate(d, 'once-bad', r.main, ['--once', '--window', '2', '--jobs', '0']).done;
  assert.equal(jobs.code, 1);
  assert.match(jobs.stderr, /--jobs takes a whole number from 1 to 64, got 0/);
  const window = await integrate(d, 'once-bad', r.main, ['--once', '--window', '0']).done;
  assert.equal(window.code, 1);
  const wide = await integrate(d, 'once-bad', r.main, ['--once', '--json', '--check', 'true', '--window', '16']).done;
  assert.equal(wide.code, 0, wide.stderr);
  assert.deepEqual(
    (JSON.parse(wide.stdout) as Out).results.map((x) => x.state),
    ['merged', 'merged'],
  );
  // SPEC §15: the CLI's integrator published the window it checked (over HTTP), for coord top and the dashboard.
  const res = await d.fetch('/v1/events?format=json&board=once-bad&limit=1000');
  const { events } = (await res.json()) as { events: { type: string; data: Record<string, unknown> }[] };
  assert.deepEqual(
    events.filter((e) => e.type === 'integration.window').map((e) => e.data),
    [{ target: 'main', tasks: queued.map((q) => q.id), size: 16 }],
  );
});

test('--lanes merges tasks on separate files through the CLI; --scope without --lanes is a usage error', async () => {
  const r = testRepo();
  await queueTasks(d, 'once-lanes', branches(r, 'l', 3));
  const alone = await integrate(d, 'once-lanes', r.main, ['--once', '--scope', 'files/**']).done;
  assert.equal(alone.code, 1);
  assert.match(alone.stderr, /--scope goes with --lanes/);
  const run = await integrate(d, 'once-lanes', r.main, ['--once', '--json', '--check', 'true', '--lanes']).done;
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    (JSON.parse(run.stdout) as Out).results.map((x) => x.state),
    ['merged', 'merged', 'merged'],
  );
});
