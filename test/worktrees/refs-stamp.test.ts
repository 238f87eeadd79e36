/**
 * git/refs-stamp.ts keeps what it reads (each tree's git directory, each HEAD's text) between decisions: the
 * stamp still moves for every change git makes to a work tree's HEAD, even when what it kept is now wrong.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { refsStamp } from '../../src/git/refs-stamp.js';
import { repoWithWorktrees } from './git-repo.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

test('the refs stamp moves on a checkout, a commit on the new branch, and a work tree re-made at the same path', () => {
  const { main, linked } = repoWithWorktrees(1);
  const tree = linked[0] as string;
  const repo = join(main, '.git');
  const trees = [main, tree];
  const stamp = () => refsStamp(repo, trees, 'main');
  const first = stamp();
  assert.equal(stamp(), first, 'nothing moved: the same stamp');
  git(tree, 'checkout', '-q', '-b', 'other');
  const checkedOut = stamp();
  assert.notEqual(checkedOut, first, 'a checkout moves HEAD');
  git(tree, 'commit', '-q', '--allow-empty', '-m', 'on other');
  const committed = stamp();
  assert.notEqual(committed, checkedOut, 'a commit on the branch HEAD now names moves its ref');
  // The same path, another linked work tree (another git directory): the HEAD kept for the old one is not read.
  git(main, 'worktree', 'remove', '--force', tree);
  git(main, 'worktree', 'add', '-q', '-b', 'again', tree);
  const remade = stamp();
  assert.notEqual(remade, committed);
  git(tree, 'commit', '-q', '--allow-empty', '-m', 'on again');
  assert.notEqual(stamp(), remade, 'a commit in the re-made work tree moves the stamp');
});
