/** SPEC §15: the merge engine — in the object store, the target moved only by compare-and-swap. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { integrateHead, type MergeRequest } from '../../src/git/integrate-merge.js';
import { RefSwapper } from '../../src/git/ref-swapper.js';
import { tempDir } from '../support/ctx.js';
import { git, testRepo } from './repo.js';

const request = (repo: string, branch: string, head: string, more: Partial<MergeRequest> = {}): MergeRequest => ({
  repo,
  target: 'main',
  branch,
  head,
  message: `coord: integrate #k3x9 ${branch}`,
  ...more,
});

describe('integrating a head into the target', () => {
  test('a head whose base is the target tip is fast-forwarded, and the checked-out clean main tree shows it', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const old = r.rev('main');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.deepEqual(out, { state: 'merged', how: 'fast-forward', commit: head, old, worktree: r.main });
    assert.equal(r.rev('main'), head);
    assert.equal(readFileSync(join(r.main, 'src/b.ts'), 'utf8'), 'b\n');
    assert.equal(git(r.main, 'status', '--porcelain'), '', 'the main work tree is clean and at the new tip');
  });

  test('a diverged head gets one merge commit naming the task, first parent the old tip', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const person = r.commit(r.main, { README: 'hi\n' }, 'a person on main');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.equal(out.state, 'merged');
    assert.equal(out.state === 'merged' && out.how, 'merge');
    const tip = r.rev('main');
    assert.equal(git(r.main, 'log', '-1', '--format=%P', tip), `${person} ${head}`);
    assert.equal(git(r.main, 'log', '-1', '--format=%s', tip), 'coord: integrate #k3x9 feat/b');
    assert.equal(readFileSync(join(r.main, 'src/b.ts'), 'utf8'), 'b\n');
    assert.equal(git(r.main, 'status', '--porcelain'), '');
  });

  test('a head already in the target is merged with no new commit', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    git(r.main, 'merge', '-q', '--no-ff', '-m', 'by hand', 'feat/b');
    const tip = r.rev('main');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.deepEqual(out, { state: 'merged', how: 'contained', commit: head, old: tip, worktree: null });
    assert.equal(r.rev('main'), tip);
  });

  test('conflicting changes answer the conflicting paths and leave the target and its tree unchanged', async () => {
    const r = testRepo({ 'src/a.ts': 'one\n', 'src/c.ts': 'c\n' });
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/a.ts': 'two\n', 'src/c.ts': 'c2\n', 'src/d.ts': 'd\n' }, 'change a');
    const tip = r.commit(r.main, { 'src/a.ts': 'three\n' }, 'person changes a');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.deepEqual(out, { state: 'conflict', paths: ['src/a.ts'], old: tip });
    assert.equal(r.rev('main'), tip);
    assert.equal(git(r.main, 'status', '--porcelain'), '');
    assert.equal(existsSync(join(r.main, 'src/d.ts')), false);
  });

  test('a dirty checked-out target blocks naming the dirty paths, and nothing changes; once clean it is updated', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const tip = r.rev('main');
    writeFileSync(join(r.main, 'src/a.ts'), 'edited by a person\n');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.equal(out.state, 'blocked');
    assert.match(
      out.state === 'blocked' ? out.reason : '',
      /main is checked out in .*project with uncommitted changes: src\/a\.ts/,
    );
    assert.equal(r.rev('main'), tip);
    assert.equal(readFileSync(join(r.main, 'src/a.ts'), 'utf8'), 'edited by a person\n');
    assert.equal(existsSync(join(r.main, 'src/b.ts')), false);

    git(r.main, 'checkout', '--', 'src/a.ts');
    const again = await integrateHead(request(r.main, 'feat/b', head));
    assert.equal(again.state, 'merged');
    assert.equal(r.rev('main'), head);
    assert.equal(readFileSync(join(r.main, 'src/b.ts'), 'utf8'), 'b\n');
  });

  test('an untracked file in the way blocks, and the target is swapped back to where it was', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const tip = r.rev('main');
    writeFileSync(join(r.main, 'src/b.ts'), 'a person, untracked\n');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.equal(out.state, 'blocked');
    assert.equal(r.rev('main'), tip);
    assert.equal(readFileSync(join(r.main, 'src/b.ts'), 'utf8'), 'a person, untracked\n');
  });

  test('a target not checked out anywhere moves without any work tree being touched', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    git(r.main, 'checkout', '-q', '-b', 'elsewhere');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.equal(out.state === 'merged' && out.worktree, null);
    assert.equal(r.rev('main'), head);
    assert.equal(existsSync(join(r.main, 'src/b.ts')), false);
  });

  test('a branch deleted since submit blocks, naming the head kept in the change record', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    git(r.main, 'worktree', 'remove', wt);
    git(r.main, 'branch', '-D', 'feat/b');
    const tip = r.rev('main');
    const out = await integrateHead(request(r.main, 'feat/b', head));
    assert.deepEqual(out, {
      state: 'blocked',
      reason: `branch feat/b no longer exists; its head ${head.slice(0, 7)} is kept in the change record`,
    });
    assert.equal(r.rev('main'), tip);
  });

  test('a missing target branch and a folder that is no longer a repository block with the reason', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const noTarget = await integrateHead(request(r.main, 'feat/b', head, { target: 'trunk' }));
    assert.deepEqual(noTarget, { state: 'blocked', reason: 'the target branch trunk does not exist' });
    const plain = tempDir('coord-not-git-');
    const out = await integrateHead(request(plain, 'feat/b', head));
    assert.deepEqual(out, { state: 'blocked', reason: `${plain} is not a git repository any more` });
  });

  for (const [how, swapper] of [
    ['one update-ref process per swap', () => undefined],
    ["the turn's update-ref --stdin", () => new RefSwapper()],
  ] as const)
    test(`a person's commit to the target between the merge and the swap survives (${how}): the merge is computed again on top`, async () => {
      const r = testRepo();
      const wt = r.worktree('feat/b');
      const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
      let person = '';
      const swaps = swapper();
      const out = await integrateHead(
        request(r.main, 'feat/b', head, {
          swapper: swaps,
          beforeSwap: async () => {
            if (person === '') person = r.commit(r.main, { NOTES: 'mine\n' }, 'a person commits meanwhile');
          },
        }),
      );
      assert.equal(out.state, 'merged');
      const history = r.history('main');
      assert.ok(history.includes(person), "the person's commit is in the target");
      assert.ok(history.includes(head), "the task's commit is in the target");
      assert.equal(git(r.main, 'log', '-1', '--format=%P', 'main'), `${person} ${head}`);
      swaps?.close();
    });
});
