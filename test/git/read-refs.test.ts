/**
 * The integration queue reads branch tips from the ref files (src/git/read-refs.ts): it must answer what
 * `git for-each-ref` answers — loose and packed refs, the main and linked work trees, a bare repository.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { branchTip } from '../../src/git/branch.js';
import { readRefs, tipFromFiles } from '../../src/git/read-refs.js';
import { git, testRepo } from './repo.js';

/** git's own answer, in the reader's shape. */
function forEachRef(repo: string, names: string[]) {
  const out = git(repo, 'for-each-ref', '--format=%(refname)%00%(objectname)%00%(worktreepath)', ...names);
  const refs = new Map<string, { sha: string; worktree: string | null }>();
  for (const line of out.split('\n').filter(Boolean)) {
    const [name = '', sha = '', worktree = ''] = line.split('\0');
    if (names.includes(name)) refs.set(name, { sha, worktree: worktree === '' ? null : worktree });
  }
  return refs;
}

describe('reading branch tips for the integration queue', () => {
  test('loose and packed refs and the work trees they are checked out in read as git for-each-ref says', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    git(r.main, 'branch', 'parked');
    const names = ['refs/heads/main', 'refs/heads/feat/b', 'refs/heads/parked', 'refs/heads/gone'];
    for (const dir of [r.main, wt]) assert.deepEqual(await readRefs(dir, names), forEachRef(dir, names));
    git(r.main, 'pack-refs', '--all');
    r.commit(r.main, { README: 'after packing\n' }, 'a loose main again');
    for (const dir of [r.main, wt]) assert.deepEqual(await readRefs(dir, names), forEachRef(dir, names));
    assert.equal((await readRefs(r.main, names))?.get('refs/heads/feat/b')?.worktree, wt);
  });

  test('a bare repository has no work tree for its HEAD branch', async () => {
    const r = testRepo();
    const bare = join(r.top, 'bare.git');
    git(r.top, 'clone', '-q', '--bare', r.main, bare);
    const refs = await readRefs(bare, ['refs/heads/main']);
    assert.deepEqual(refs, new Map([['refs/heads/main', { sha: r.rev('main'), worktree: null }]]));
  });

  test('a linked work tree that was deleted is no longer read as a repository', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    assert.notEqual(await readRefs(wt, ['refs/heads/main']), null);
    rmSync(wt, { recursive: true, force: true });
    assert.equal(await readRefs(wt, ['refs/heads/main']), null);
  });
});

describe("a branch's tip without a git process (branchTip)", () => {
  /** git's own answer: the commit, or null when there is no such branch. */
  const revParse = (dir: string, branch: string) => {
    const out = git(dir, 'for-each-ref', '--format=%(objectname)', `refs/heads/${branch}`);
    return out.trim() === '' ? null : out.trim();
  };

  test('loose, packed and missing branches read as git says, from the main and a linked work tree', async () => {
    const r = testRepo();
    const wt = r.worktree('feat/b');
    r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const branches = ['main', 'feat/b', 'gone'];
    const same = async () => {
      for (const dir of [r.main, wt])
        for (const b of branches) {
          assert.equal(await tipFromFiles(dir, b), revParse(dir, b), `${b} from ${dir}`);
          assert.equal(await branchTip(dir, b), revParse(dir, b), `${b} from ${dir}`);
        }
    };
    await same();
    git(r.main, 'pack-refs', '--all');
    await same();
    r.commit(wt, { 'src/b.ts': 'b2\n' }, 'b again: loose over packed');
    await same();
    // packed-refs written again (its parse is kept while the file stays the same): the new tips are read.
    git(r.main, 'pack-refs', '--all');
    r.commit(r.main, { README: 'main moves\n' }, 'main moves');
    git(r.main, 'pack-refs', '--all');
    git(r.main, 'branch', '-f', 'feat/b2', 'main');
    git(r.main, 'pack-refs', '--all');
    branches.push('feat/b2');
    await same();
  });

  test("a work tree made again at the same path by another repository is read as that repository's", async () => {
    const a = testRepo({ 'a.txt': 'a\n' });
    const b = testRepo({ 'b.txt': 'b\n' });
    const path = join(a.top, 'shared-path');
    git(a.main, 'worktree', 'add', '-q', '-b', 'wa', path);
    assert.equal(await tipFromFiles(path, 'main'), a.rev('main'));
    assert.equal((await readRefs(path, ['refs/heads/main']))?.get('refs/heads/main')?.sha, a.rev('main'));
    git(a.main, 'worktree', 'remove', '--force', path);
    git(b.main, 'worktree', 'add', '-q', '-b', 'wb', path);
    assert.equal(await tipFromFiles(path, 'main'), b.rev('main'));
    assert.equal((await readRefs(path, ['refs/heads/main']))?.get('refs/heads/main')?.sha, b.rev('main'));
  });

  test('a name that is no plain path below refs/heads/ is left to git', async () => {
    const r = testRepo();
    for (const name of ['../../HEAD', 'a/../main', '/main', 'main/', 'x.lock', '-main'])
      assert.equal(await tipFromFiles(r.main, name), undefined, name);
    assert.equal(await branchTip(r.main, '../../HEAD'), null, 'git finds no such branch');
  });
});
