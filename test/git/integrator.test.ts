/**
 * SPEC §15 end to end in one process: real repositories with several work trees, a real store, the
 * integrator merging completed tasks in dependency order, conflicts and failed checks turned into
 * follow-up tasks with the target unchanged.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { operations as op } from '../../src/core/operations.js';
import { checksDir } from '../../src/git/integrate-check.js';
import { integrateHead } from '../../src/git/integrate-merge.js';
import { Integrator, type IntegratorOptions, mergeMessage } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { type Harness, harness, makeSqliteStore, tempDir } from '../support/ctx.js';
import { git, type TestRepo, testRepo } from './repo.js';

/** Posts, claims and completes a task worked in `wt` with `files` committed there, and queues it. */
async function work(
  h: Harness,
  r: TestRepo,
  wt: string,
  agent: string,
  title: string,
  files: Record<string, string>,
  blocked_by: string[] = [],
) {
  const { task } = await h.call(op.createTask, { agent: 'planner', title, blocked_by });
  return { task, finish: () => finish(h, r, wt, agent, task.id, files) };
}

async function finish(
  h: Harness,
  r: TestRepo,
  wt: string,
  agent: string,
  task_id: string,
  files: Record<string, string>,
) {
  const grant = await h.call(op.claimTask, { task_id, agent });
  const head = r.commit(wt, files, `work of #${task_id}`);
  await h.call(op.submitResult, { task_id, claim_id: grant.claim_id, status: 'completed', agent });
  const branch = git(wt, 'rev-parse', '--abbrev-ref', 'HEAD');
  await h.call(op.queueIntegration, { task_id, worktree: wt, branch, head });
  return head;
}

function integrator(h: Harness, r: TestRepo, more: Partial<IntegratorOptions> = {}) {
  return new Integrator(boardInProcess(h.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: 'test integrator',
    ...more,
  });
}

/** Turns until nothing moves, as `coord integrate --once` does. */
async function drain(i: Integrator): Promise<void> {
  for (;;) {
    const turn = await i.turn();
    if (turn.progressed === 0) return;
  }
}

const integration = async (h: Harness, task_id: string) => (await h.call(op.showTask, { task_id })).task.integration;

describe('the integrator', () => {
  test('dependent tasks from three work trees are merged in dependency order, each commit exactly once', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const [w1, w2, w3] = ['feat/a', 'feat/b', 'feat/c'].map((b) => r.worktree(b)) as [string, string, string];
    const base = await work(h, r, w1, 'claude#1', 'the base', { 'src/base.ts': 'base\n' });
    const dependent = await work(h, r, w2, 'codex#2', 'uses the base', { 'src/use.ts': 'use\n' }, [base.task.id]);
    const independent = await work(h, r, w3, 'gemini#3', 'docs', { 'docs/x.md': 'x\n' });
    // Completion order: the independent task first, then the base, then its dependent — which was
    // completed before its blocker was merged, so it must wait.
    const hDocs = await independent.finish();
    const hBase = await base.finish();
    const hUse = await dependent.finish();

    const order: string[] = [];
    const i = integrator(h, r, { onResult: (q, res) => order.push(`${q.task_id}:${res.state}`) });
    await drain(i);
    assert.deepEqual(order, [`${independent.task.id}:merged`, `${base.task.id}:merged`, `${dependent.task.id}:merged`]);
    for (const t of [independent, base, dependent]) assert.equal((await integration(h, t.task.id))?.state, 'merged');

    const history = r.history('main');
    for (const c of [hDocs, hBase, hUse]) assert.equal(history.filter((x) => x === c).length, 1, c);
    assert.equal(new Set(history).size, history.length);
    // The first was a fast-forward; the others merge commits naming their task, first parent the old tip.
    const merges = git(r.main, 'log', '--merges', '--format=%s', 'main').split('\n');
    assert.deepEqual(merges, [
      `coord: integrate #${dependent.task.id} uses the base`,
      `coord: integrate #${base.task.id} the base`,
    ]);
    assert.equal(git(r.main, 'status', '--porcelain'), '', 'the checked-out main is clean and current');
    const events = (await h.call(op.listEvents, { limit: 500 })).events.filter((e) => e.type === 'task.integrated');
    assert.equal(events.length, 3);

    // Nothing left: another pass merges nothing again.
    assert.deepEqual(await i.turn(), { busy: null, progressed: 0 });
    assert.equal(r.history('main').length, history.length);
  });

  test('a conflict leaves the target unchanged and gives the agent a follow-up; its commits on the branch are merged next', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo({ 'src/a.ts': 'one\n' });
    const wt = r.worktree('feat/b');
    const t = await work(h, r, wt, 'codex#1a2b', 'change a', { 'src/a.ts': 'two\n' });
    await t.finish();
    const tip = r.commit(r.main, { 'src/a.ts': 'three\n' }, 'a person changes a');
    const i = integrator(h, r);
    await drain(i);
    assert.equal(r.rev('main'), tip);
    const shown = (await h.call(op.showTask, { task_id: t.task.id })).task;
    assert.equal(shown.integration?.state, 'conflict');
    assert.equal(shown.integration?.reason, 'src/a.ts');
    assert.match(shown.notes?.[0]?.text ?? '', /conflicts with main in src\/a\.ts/);
    const inbox = await h.call(op.inbox, { agent: 'codex#1a2b' });
    const followup = inbox.tasks.find((x) => x.title.startsWith(`resolve the conflicts of #${t.task.id} with main`));
    assert.ok(followup, 'the follow-up is in the agent’s inbox');
    assert.equal(followup.for, 'codex#1a2b');
    const told = (await h.call(op.listMessages, { agent: 'codex#1a2b' })).messages.map((m) => m.text);
    assert.deepEqual(told, [`#${t.task.id} conflicts with main in src/a.ts: see task #${followup.id}`]);

    // Nothing moved: the conflict is not tried again.
    assert.equal((await i.turn()).progressed, 0);
    // The agent does the follow-up on its branch: merge main, fix, commit, submit. The integrator merges
    // the head that submit recorded.
    git(wt, 'merge', '-q', 'main', '-m', 'merge main', '-X', 'theirs');
    await finish(h, r, wt, 'codex#1a2b', followup.id, { 'src/a.ts': 'resolved\n' });
    await drain(i);
    assert.equal((await integration(h, t.task.id))?.state, 'merged');
    assert.ok(r.history('main').includes(tip), "the person's commit survives");
    assert.equal(git(r.main, 'show', 'main:src/a.ts'), 'resolved');
    const texts = (await h.call(op.listMessages, { agent: 'codex#1a2b' })).messages.map((m) => m.text);
    assert.ok(texts.includes(`#${t.task.id} merged into main as ${r.rev('main').slice(0, 7)}`), texts.join('\n'));
  });

  test('a failed check leaves the target unchanged, notes the output and gives the agent a follow-up', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const t = await work(h, r, wt, 'codex#1a2b', 'break it', { 'src/b.ts': 'broken\n' });
    await t.finish();
    const tip = r.rev('main');
    const state = tempDir('coord-state-');
    const i = integrator(h, r, {
      stateDir: state,
      check: { command: 'grep -q broken src/b.ts && echo "test b failed" && exit 1', timeoutMs: 60_000 },
    });
    await drain(i);
    assert.equal(r.rev('main'), tip);
    const shown = (await h.call(op.showTask, { task_id: t.task.id })).task;
    assert.equal(shown.integration?.state, 'check_failed');
    assert.match(shown.notes?.[0]?.text ?? '', /test b failed/);
    const inbox = await h.call(op.inbox, { agent: 'codex#1a2b' });
    assert.ok(inbox.tasks.some((x) => x.title.startsWith(`fix the check of #${t.task.id} on main`)));
    assert.deepEqual(readdirSync(checksDir(state)), []);
  });

  test('--review holds a ready merge until approved, then merges it', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const t = await work(h, r, wt, 'codex#1a2b', 'add b', { 'src/b.ts': 'b\n' });
    const head = await t.finish();
    const tip = r.rev('main');
    const i = integrator(h, r, { review: true });
    await drain(i);
    assert.equal((await integration(h, t.task.id))?.state, 'awaiting_review');
    assert.equal(r.rev('main'), tip);
    assert.equal((await i.turn()).progressed, 0, 'an unapproved merge waits');
    await h.call(op.approveIntegration, { task_id: t.task.id });
    await drain(i);
    assert.deepEqual(await integration(h, t.task.id), { state: 'merged', commit: head, target: 'main' });
  });

  test('a dirty checked-out target blocks once (no repeated notes) and the task is merged when it is clean again', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const t = await work(h, r, wt, 'codex#1a2b', 'add b', { 'src/b.ts': 'b\n' });
    await t.finish();
    writeFileSync(join(r.main, 'src/a.ts'), 'dirty\n');
    const i = integrator(h, r);
    await drain(i);
    await drain(i);
    const shown = (await h.call(op.showTask, { task_id: t.task.id })).task;
    assert.equal(shown.integration?.state, 'blocked');
    assert.match(shown.integration?.reason ?? '', /uncommitted changes: src\/a\.ts/);
    assert.equal(shown.notes_count, 1);
    git(r.main, 'checkout', '--', 'src/a.ts');
    await drain(i);
    assert.equal((await integration(h, t.task.id))?.state, 'merged');
  });

  test('an integrator that died between moving the target and recording leaves the merge commit, not the head, as merged_as', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const t = await work(h, r, wt, 'codex#1a2b', 'add b', { 'src/b.ts': 'b\n' });
    const head = await t.finish();
    r.commit(r.main, { README: 'a person on main\n' }, 'a person on main');
    // The swap of an integrator killed before it recorded anything: the target holds its merge commit.
    const crashed = await integrateHead({
      repo: r.main,
      target: 'main',
      branch: 'feat/b',
      head,
      message: mergeMessage(t.task.id, 'add b'),
    });
    assert.equal(crashed.state, 'merged');
    const merge = r.rev('main');
    assert.notEqual(merge, head);
    await drain(integrator(h, r));
    // `integration.commit` is what a change record shows as `merged_as` (core/integration/describe-integration.ts).
    assert.deepEqual(await integration(h, t.task.id), { state: 'merged', commit: merge, target: 'main' });
    assert.equal(r.rev('main'), merge, 'no second merge commit');
  });

  test('a head a person merged by hand is recorded as already contained, with the head as merged_as', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const t = await work(h, r, wt, 'codex#1a2b', 'add b', { 'src/b.ts': 'b\n' });
    const head = await t.finish();
    r.commit(r.main, { README: 'a person on main\n' }, 'a person on main');
    git(r.main, 'merge', '-q', '--no-ff', '-m', 'merged by hand', 'feat/b');
    const tip = r.rev('main');
    await drain(integrator(h, r));
    assert.deepEqual(await integration(h, t.task.id), { state: 'merged', commit: head, target: 'main' });
    assert.equal(r.rev('main'), tip);
  });

  test('a result the board refuses to record stops the turn before its next move of the target; the next turn records what was merged', async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const tasks = [];
    for (const name of ['a', 'b', 'c']) {
      const wt = r.worktree(`feat/${name}`);
      const t = await work(h, r, wt, 'codex#1a2b', `add ${name}`, { [`src/${name}.ts`]: `${name}\n` });
      await t.finish();
      tasks.push(t.task.id);
    }
    const before = r.rev('main');
    // A board that refuses the first result it is given (as one whose slot was taken meanwhile does).
    const board = boardInProcess(h.ctx);
    let refused = false;
    const refusing = {
      ...board,
      record: async (input: Parameters<typeof board.record>[0]) => {
        if (!refused) {
          refused = true;
          throw new Error('the slot is not yours any more');
        }
        return board.record(input);
      },
    };
    const first = new Integrator(refusing, {
      board: 'default',
      repo: r.main,
      target: 'main',
      stateDir: tempDir('coord-state-'),
      holder: 'refused',
    });
    await assert.rejects(first.turn(), /the slot is not yours any more/);
    // The first task's merge (a fast-forward) moved the target; the next one, computed meanwhile, never did.
    assert.equal(r.history('main').length, r.history(before).length + 1, 'one task merged');
    await first.releaseSlot();
    await drain(integrator(h, r));
    for (const id of tasks) assert.equal((await integration(h, id))?.state, 'merged', id);
    // a fast-forward, then b and c each with its merge commit
    assert.equal(r.history('main').length, r.history(before).length + 5, 'each task merged exactly once');
  });

  for (const window of [1, 2])
    test(`--push: a remote branch deleted while the integrator runs leaves the task blocked, naming it (window ${window})`, async () => {
      const h = await harness(makeSqliteStore);
      const r = testRepo();
      const bare = join(r.top, 'shared.git');
      git(r.top, 'clone', '-q', '--bare', r.main, bare);
      git(r.main, 'remote', 'add', 'origin', bare);
      const wt = r.worktree('feat/x');
      const t = await work(h, r, wt, 'claude#1', 'x', { 'src/x.ts': 'x\n' });
      await t.finish();
      git(bare, 'branch', '-D', 'main');
      const i = integrator(h, r, {
        push: 'origin',
        window,
        ...(window > 1 ? { check: { command: 'true', timeoutMs: 60_000 } } : {}),
      });
      await drain(i);
      const got = await integration(h, t.task.id);
      assert.equal(got?.state, 'blocked');
      assert.match(got?.reason ?? '', /the branch main does not exist on the remote origin/);
    });
});
