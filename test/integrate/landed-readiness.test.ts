/**
 * SPEC §11 "ready = landed" end to end: a real repository, agents submitting from their own work trees, a
 * daemon, and `coord integrate` as a real process. A step whose blocker has commits becomes ready only once
 * that blocker is merged into the target; a blocker in conflict keeps it blocked; a person's own merge counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { git, type TestRepo } from '../git/repo.js';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { integrate, testRepo } from './queue-fixture.js';

interface Blocker {
  id: string;
  state: string;
  integration?: string;
}
interface Task {
  id: string;
  ready: boolean;
  state: string;
  blocked: Blocker[];
  integration?: { state: string };
}

describe('ready = landed, with a real repository and coord integrate', () => {
  let d: SpawnedDaemon;
  let r: TestRepo;
  const board = 'landed';
  before(async () => {
    d = await spawnDaemon();
    r = testRepo({ 'src/shared.ts': 'export const x = 1;\n' });
    // The board's repository and target, as `coord target main` run inside it sets them.
    const res = await d.fetch('/v1/target', { method: 'POST', json: { board, branch: 'main', worktree: r.main } });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.equal((JSON.parse(text) as { ready_on: string }).ready_on, 'landed');
  });
  after(() => d?.stop());

  const call = async (path: string, json?: unknown) => {
    const res = await d.fetch(path, json === undefined ? {} : { method: 'POST', json });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const post = async (title: string, blocked_by: string[] = []) =>
    ((await call('/v1/tasks', { agent: 'planner', board, title, blocked_by })).body.task as Task).id;
  const show = async (id: string) => (await call(`/v1/tasks/${id}`)).body.task as Task;

  /** Claims `id`, commits `files` on `branch` in its own work tree, and submits from there. */
  async function work(id: string, branch: string, files: Record<string, string>) {
    const agent = `agent-${branch}`;
    const claim = await call(`/v1/tasks/${id}/claim`, { agent });
    assert.equal(claim.status, 200, JSON.stringify(claim.body));
    const tree = r.worktree(branch);
    r.commit(tree, files, `${branch}: work`);
    const done = await call(`/v1/tasks/${id}/submit`, {
      agent,
      claim_id: claim.body.claim_id,
      status: 'completed',
      worktree: tree,
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    return tree;
  }

  const tree = async (id: string) => {
    const out = await runCli(['tree', id, '--state', d.stateDir, '--board', board, '--agent', 'planner']);
    assert.equal(out.code, 0, out.stderr);
    return out.stdout;
  };

  test('a dependent becomes ready only after its blocker is merged by coord integrate', async () => {
    const logging = await post('logging');
    const docs = await post('docs', [logging]);
    await work(logging, 'logging', { 'src/log.ts': 'export const log = 1;\n' });

    const waiting = await show(docs);
    assert.equal(waiting.ready, false);
    assert.deepEqual(waiting.blocked, [{ id: logging, state: 'completed', integration: 'pending' }]);
    const refused = await call(`/v1/tasks/${docs}/claim`, { agent: 'eager' });
    assert.equal(refused.status, 409);
    assert.equal((refused.body.error as { code: string }).code, 'blocked');
    const drawn = await tree(docs);
    assert.match(drawn, new RegExp(`#${docs} \\[blocked · waiting for merge\\] docs`));
    assert.match(drawn, new RegExp(`#${logging} \\[completed · pending\\] logging`));
    assert.doesNotMatch(drawn, /\[ready\]/);

    const run = integrate(d, board, r.main, ['--once']);
    const { code, stderr } = await run.done;
    assert.equal(code, 0, stderr);
    assert.ok(r.history('main').includes(r.rev('logging')));

    const now = await show(docs);
    assert.equal(now.ready, true);
    assert.deepEqual(now.blocked, []);
    const { events } = (await call('/v1/events?format=json&limit=1000&since=0')).body as {
      events: { type: string; task_id: string | null; seq: number }[];
    };
    const merged = events.find((e) => e.type === 'task.integrated' && e.task_id === logging)!;
    const ready = events.find((e) => e.type === 'task.ready' && e.task_id === docs)!;
    assert.equal(ready.seq, merged.seq + 1, 'task.ready in the transaction that records the merge');
    assert.match(await tree(docs), new RegExp(`#${docs} \\[ready\\] docs`));
    assert.equal((await call(`/v1/tasks/${docs}/claim`, { agent: 'eager' })).status, 200);
  });

  test('a dependent stays blocked while its blocker is in conflict with the target', async () => {
    const blocker = await post('rename x');
    const dep = await post('use the new name', [blocker]);
    await work(blocker, 'rename', { 'src/shared.ts': 'export const renamed = 1;\n' });
    // Meanwhile someone changes the same line on main.
    r.commit(r.main, { 'src/shared.ts': 'export const y = 2;\n' }, 'main moves on');

    const run = integrate(d, board, r.main, ['--once']);
    const out = await run.done;
    assert.match(out.stdout, /conflicts with main in src\/shared\.ts/, out.stderr);
    assert.equal((await show(blocker)).integration?.state, 'conflict');
    const waiting = await show(dep);
    assert.equal(waiting.ready, false);
    assert.deepEqual(waiting.blocked, [{ id: blocker, state: 'completed', integration: 'conflict' }]);
    const refused = await call(`/v1/tasks/${dep}/claim`, { agent: 'eager' });
    assert.equal(refused.status, 409);
    assert.deepEqual((refused.body.error as { blocked: Blocker[] }).blocked, [
      { id: blocker, state: 'completed', integration: 'conflict' },
    ]);
    assert.match(await tree(dep), new RegExp(`#${blocker} \\[completed · conflict\\]`));
  });

  test('work a person merged into the target counts: its dependents become ready with no integrator running', async () => {
    const blocker = await post('by hand');
    const dep = await post('after the hand merge', [blocker]);
    await work(blocker, 'by-hand', { 'src/hand.ts': 'export const hand = 1;\n' });
    assert.equal((await show(dep)).ready, false);
    git(r.main, 'merge', '-q', '--no-edit', 'by-hand');
    // The daemon's background look (as for holds) finds the head in main.
    await waitFor(async () => (await show(dep)).ready, 'the dependent of a hand-merged task to be ready');
    const { events } = (await call('/v1/events?format=json&limit=1000&since=0')).body as {
      events: { type: string; task_id: string | null; data: { how?: string } }[];
    };
    const merged = events.filter((e) => e.type === 'task.integrated' && e.task_id === blocker);
    assert.deepEqual(
      merged.map((e) => e.data.how),
      ['contained'],
    );
    assert.equal((await show(blocker)).integration?.state, 'merged');
  });
});
