/**
 * SPEC §14: a hold that blocked an edit is looked at with git, and the edit decided again. The daemon's
 * hold keeper (or a second daemon on PostgreSQL) may end that hold first, between the refusal and the look:
 * the decision must then be taken again, not the stale refusal returned. CI met this once on PostgreSQL with
 * two daemons ("once the work is merged into the target, the hold ends by itself and B may edit").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { invoke } from '../../src/core/invoke.js';
import type { Ctx } from '../../src/core/operation.js';
import { decideEdit } from '../../src/core/ops/decide-edit.js';
import { lockFiles, unlockFiles } from '../../src/core/ops/locks.js';
import { settleHolds } from '../../src/core/ops/settle-holds.js';
import type { GitPort } from '../../src/core/worktrees/git-port.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { harness, makeSqliteStore } from '../support/ctx.js';
import { repoWithWorktrees } from './git-repo.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

/**
 * A git port that lets "the keeper" settle the board's holds to completion at the moment the decision
 * starts its own look (its first `invalidate`): the interleaving the two daemons met.
 */
function keeperFirst(real: GitRepos, keeper: () => Promise<unknown>): GitPort {
  let armed = false;
  let ran = false;
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'invalidate')
        return (tree?: string) => {
          if (!ran) armed = true;
          return target.invalidate(tree);
        };
      if (prop === 'locate')
        return async (tree: string) => {
          if (armed && !ran) {
            ran = true;
            await keeper();
          }
          return target.locate(tree);
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as unknown as GitPort;
}

test('a hold the keeper ends between the refusal and the decision’s own look lets the edit through — the refusal is not returned stale', async () => {
  const h = await harness(makeSqliteStore);
  const real = new GitRepos();
  const repo = repoWithWorktrees(2);
  const [wtA = '', wtB = ''] = repo.linked;
  const plain: Ctx = { ...h.ctx, git: real };

  // A locks src/a.ts in its work tree, changes and commits it, and lets go: the lock becomes wtA's hold.
  const lock = await invoke(lockFiles, plain, { agent: 'alice', resources: ['src/a.ts'], worktree: wtA });
  writeFileSync(join(wtA, 'src/a.ts'), 'export const a = 2;\n');
  git(wtA, 'commit', '-qam', 'a is 2');
  await invoke(unlockFiles, plain, { lock_id: lock.lock_id });
  const board = (await h.store.listLocks()).find((l) => l.hold)?.board;
  assert.ok(board, 'the lock became a hold of its work tree');
  const refused = await invoke(decideEdit, plain, { agent: 'bob', paths: ['src/a.ts'], worktree: wtB });
  assert.equal(refused.decision, 'deny', 'the hold keeps the other work tree out');

  // The work is merged; the keeper ends the hold just as bob's decision looks at it.
  git(repo.main, 'merge', '-q', '--no-edit', 'wt1');
  const racing: Ctx = { ...h.ctx, git: keeperFirst(real, () => settleHolds(plain, board)) };
  const now = await invoke(decideEdit, racing, { agent: 'bob', paths: ['src/a.ts'], worktree: wtB });
  assert.equal(now.decision, 'allow', now.reason ?? '');
  assert.equal(
    (await h.store.listLocks()).some((l) => l.hold),
    false,
    'no hold is left',
  );
});
