/**
 * A work tree's top folder, common dir, HEAD and branch are read from its files (git/read-refs.ts
 * treeFromFiles, behind GitRepos.locate): each state a work tree goes through answers what
 * `git rev-parse` answers, and whatever the files cannot say (a folder inside a tree, an unborn branch) is
 * left to git. Real repositories, a linked work tree reached through a symbolic link.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GitRepos } from '../../src/git/git-repos.js';
import { treeFromFiles } from '../../src/git/read-refs.js';
import { tempDir } from '../support/ctx.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

/** What git says of `dir`, in locate's shape. */
function fromGit(dir: string) {
  const [root, commonDir, head] = git(
    dir,
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--git-common-dir',
    'HEAD',
  ).split('\n');
  const ref = git(dir, 'rev-parse', '--symbolic-full-name', 'HEAD');
  return { root, commonDir, head, branch: ref === 'HEAD' ? null : ref.slice('refs/heads/'.length) };
}

test('a work tree read from its files says what git says: main and linked trees, a commit, a detached HEAD, packed refs, a path through a symbolic link', async () => {
  const top = tempDir('coord-tree-files-');
  const main = join(top, 'repo');
  git(top, 'init', '-q', '-b', 'main', main);
  writeFileSync(join(main, 'a.ts'), 'export const a = 1;\n');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'a');
  const linked = join(top, 'wt');
  git(main, 'worktree', 'add', '-q', '-b', 'feat', linked);
  symlinkSync(top, join(top, '..', `${top.split('/').at(-1)}-link`));
  const viaLink = join(`${top}-link`, 'wt');

  const states: [string, () => void][] = [
    ['as made', () => {}],
    [
      'after a commit in the linked tree',
      () => {
        writeFileSync(join(linked, 'b.ts'), 'export const b = 1;\n');
        git(linked, 'add', '.');
        git(linked, 'commit', '-qm', 'b');
      },
    ],
    ['with every ref packed', () => git(main, 'pack-refs', '--all')],
    ['with the linked tree detached', () => git(linked, 'switch', '-q', '--detach')],
    ['back on a branch made since', () => git(linked, 'switch', '-qc', 'again')],
  ];
  for (const [state, change] of states) {
    change();
    for (const dir of [main, linked, viaLink]) {
      const read = await treeFromFiles(dir);
      assert.notEqual(read, undefined, `${state}: ${dir} is read from its files`);
      assert.deepEqual(read, fromGit(dir), `${state}: ${dir}`);
    }
  }
});

test('what the files cannot say is left to git: a folder inside a work tree, an unborn branch', async () => {
  const top = tempDir('coord-tree-files-');
  const repo = join(top, 'repo');
  git(top, 'init', '-q', '-b', 'main', repo);
  assert.equal(await treeFromFiles(repo), undefined, 'no commit yet');
  writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'a');
  mkdirSync(join(repo, 'src'));
  assert.equal(await treeFromFiles(join(repo, 'src')), undefined, 'a folder inside the tree');
  // locate answers both through git, as before.
  const located = await new GitRepos().locate(join(repo, 'src'));
  assert.deepEqual(located, fromGit(repo));
});
