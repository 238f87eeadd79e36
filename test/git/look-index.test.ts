/**
 * The daemon's shell looks (status.ts shellLook) run on its own copy of the work tree's index, where git keeps
 * its untracked cache (look-index.ts, issue 34): the agent's index is never written, the copy follows every
 * change the agent makes to its index, the cache never hides a file created or deleted, and an entry git would
 * re-read in the agent's index (racily clean) is re-read in the copy too.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { shellLook } from '../../src/git/status.js';
import { waitFor } from '../support/wait-for.js';
import { git, testRepo } from './repo.js';

const codes = (l: Awaited<ReturnType<typeof shellLook>>) =>
  Object.fromEntries(Object.entries(l.entries).map(([p, e]) => [p, e.stamp.slice(0, 4)]));

describe("shell looks on the daemon's copy of the index", () => {
  test("the agent's index is never written; a file it stages, creates or deletes between looks is seen", async () => {
    const r = testRepo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const index = join(r.main, '.git', 'index');
    const bytes = readFileSync(index);
    const mtime = statSync(index).mtimeMs;
    writeFileSync(join(r.main, 'src/new.ts'), 'new\n');
    assert.deepEqual(codes(await shellLook(r.main, true)), { 'src/new.ts': '? sr' });
    assert.deepEqual(codes(await shellLook(r.main, false)), {});
    // The untracked cache now knows src/: a file created in it, and one deleted from it, are still seen.
    writeFileSync(join(r.main, 'src/other.ts'), 'other\n');
    rmSync(join(r.main, 'src/new.ts'));
    assert.deepEqual(codes(await shellLook(r.main, true)), { 'src/other.ts': '? sr' });
    assert.deepEqual(readFileSync(index), bytes, "the agent's index is as it was");
    assert.equal(statSync(index).mtimeMs, mtime);
    // The agent stages a file: the copy is taken again, so the look says staged, not untracked.
    git(r.main, 'add', 'src/other.ts');
    assert.deepEqual(codes(await shellLook(r.main, true)), { 'src/other.ts': '1 A.' });
    git(r.main, 'reset', '-q');
    assert.deepEqual(codes(await shellLook(r.main, true)), { 'src/other.ts': '? sr' });
  });

  test('a file rewritten to the same size in the second its index was written is seen changed, though the copy is taken a second later', async () => {
    const r = testRepo({ 'a.txt': 'aaaa\n' });
    const index = join(r.main, '.git', 'index');
    const file = join(r.main, 'a.txt');
    // Racy git: `git add`, then the same size written again within the index's own second (tried until it is).
    let second = 0;
    await waitFor(() => {
      writeFileSync(file, 'bbbb\n');
      git(r.main, 'add', 'a.txt');
      writeFileSync(file, 'cccc\n');
      second = Math.floor(statSync(index).mtimeMs / 1000);
      return Math.floor(statSync(file).mtimeMs / 1000) === second;
    }, 'an edit in the second its index was written');
    await waitFor(() => Date.now() >= (second + 1) * 1000 + 50, 'the next second');
    assert.deepEqual(codes(await shellLook(r.main, false)), { 'a.txt': '1 MM' });
  });
});
