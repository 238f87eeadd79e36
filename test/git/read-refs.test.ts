/**
 * The integration queue reads branch tips from the ref files (src/git/read-refs.ts): it must answer what
 * `git for-each-ref` answers — loose and packed refs, the main and linked work trees, a bare repository.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readRefs } from '../../src/git/read-refs.js';
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
