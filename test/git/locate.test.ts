/**
 * GitRepos.locate (a work tree's top, common dir, HEAD and branch) answers what git's own questions answer, in
 * every shape a work tree comes in: on a branch, in a sub-folder, linked, detached, with no commit yet, with a
 * file named HEAD, and outside any repository.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { GitRepos } from '../../src/git/git-repos.js';
import { tempDir } from '../support/ctx.js';
import { git, testRepo } from './repo.js';

/** What git says, one question at a time. */
function asked(dir: string) {
  const at = (...a: string[]) => {
    try {
      return git(dir, ...a);
    } catch {
      return null;
    }
  };
  const [root = '', commonDir = ''] = (
    at('rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir') ?? ''
  ).split('\n');
  return {
    root,
    commonDir,
    head: at('rev-parse', '--verify', '--quiet', 'HEAD^{commit}'),
    branch: at('symbolic-ref', '-q', '--short', 'HEAD'),
  };
}

describe("locating a work tree's top, HEAD and branch", () => {
  test('a branch, a sub-folder, a linked work tree, a detached HEAD, no commit yet and a file named HEAD read as git says', async () => {
    const r = testRepo();
    const linked = r.worktree('feat/b');
    const detached = r.worktree('feat/d');
    git(detached, 'checkout', '-q', '--detach');
    const unborn = realpathSync(tempDir('coord-locate-'));
    git(unborn, 'init', '-q', '-b', 'trunk');
    const headFile = r.worktree('feat/h');
    writeFileSync(join(headFile, 'HEAD'), 'a file\n');
    mkdirSync(join(r.main, 'src', 'deep'), { recursive: true });
    for (const dir of [r.main, join(r.main, 'src', 'deep'), linked, detached, unborn, headFile]) {
      assert.deepEqual(await new GitRepos().locate(dir), asked(dir), dir);
    }
    assert.equal((await new GitRepos().locate(detached))?.branch, null);
    assert.equal((await new GitRepos().locate(unborn))?.head, null);
    assert.equal((await new GitRepos().locate(linked))?.branch, 'feat/b');
  });

  test('a folder outside any repository is located nowhere', async () => {
    assert.equal(await new GitRepos().locate(realpathSync(tempDir('coord-locate-none-'))), null);
  });
});
