/**
 * A question about commits named by their ids (a merge base, the paths, lines or commits between two) has one
 * answer for good, so git is asked it once (git/branch.ts); a question naming a branch is asked every time, since
 * the branch moves. Real git repositories: "asked once" is shown by taking the repository away after the first
 * answer — the same question by ids is still answered, and no question by name can be.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { changedPaths, commitsBetween, diffStat, mergeBase } from '../../src/git/branch.js';
import { tempDir } from '../support/ctx.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

function repo(): { dir: string; base: string; feat: string } {
  const dir = join(tempDir('coord-ids-'), 'r');
  git(tempDir(), 'init', '-q', '-b', 'main', dir);
  writeFileSync(join(dir, 'a.ts'), 'export const a = 1;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'a');
  const base = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'switch', '-qc', 'feat');
  writeFileSync(join(dir, 'b.ts'), 'export const b = 1;\nexport const c = 2;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'b');
  return { dir, base, feat: git(dir, 'rev-parse', 'HEAD') };
}

test('a question about commits named by their ids is answered once: the same question still answers after the repository is gone', async () => {
  const r = repo();
  const ask = async () => ({
    base: await mergeBase(r.dir, r.base, r.feat),
    paths: await changedPaths(r.dir, r.base, r.feat),
    stat: await diffStat(r.dir, r.base, r.feat),
    commits: (await commitsBetween(r.dir, r.base, r.feat)).map((c) => c.subject),
  });
  const answers = {
    base: r.base,
    paths: ['b.ts'],
    stat: { paths: ['b.ts'], insertions: 2, deletions: 0 },
    commits: ['b'],
  };
  assert.deepEqual(await ask(), answers);
  renameSync(r.dir, `${r.dir}-gone`);
  assert.deepEqual(await ask(), answers);
  // A branch name is asked of git every time: with the repository gone, git cannot answer.
  await assert.rejects(mergeBase(r.dir, 'main', 'feat'));
});

test('a question naming a branch follows the branch as it moves', async () => {
  const r = repo();
  assert.equal(await mergeBase(r.dir, 'main', 'feat'), r.base);
  assert.deepEqual(await changedPaths(r.dir, 'main', 'feat'), ['b.ts']);
  git(r.dir, 'switch', '-q', 'main');
  git(r.dir, 'merge', '-q', '--ff-only', 'feat');
  assert.equal(await mergeBase(r.dir, 'main', 'feat'), r.feat);
  assert.deepEqual(await changedPaths(r.dir, 'main', 'feat'), []);
});

test('each caller gets its own copy of a kept answer', async () => {
  const r = repo();
  const first = await changedPaths(r.dir, r.base, r.feat);
  first.push('not git.ts');
  const stat = await diffStat(r.dir, r.base, r.feat);
  stat.insertions = 99;
  stat.paths.push('not git either.ts');
  assert.deepEqual(await changedPaths(r.dir, r.base, r.feat), ['b.ts']);
  assert.deepEqual(await diffStat(r.dir, r.base, r.feat), { paths: ['b.ts'], insertions: 2, deletions: 0 });
});
