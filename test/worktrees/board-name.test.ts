/** SPEC §5: a repository is one board, whatever work tree an agent sits in. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, test } from 'node:test';
import { boardForDir, findWorkTree, foldsCase, locatePath, treeRelative } from '../../src/state-dir/board-name.js';
import { tempDir } from '../support/ctx.js';
import { bareRepoWithWorktree, repoWithWorktrees } from './git-repo.js';

/** The formula a main work tree's board always had: folder name plus six hex of its path's sha256. */
const oldBoard = (root: string) => `${basename(root)}-${createHash('sha256').update(root).digest('hex').slice(0, 6)}`;

describe('board names across work trees', () => {
  test("the main work tree and two linked ones share one board, named as the main tree's always was", () => {
    const repo = repoWithWorktrees(2);
    const board = boardForDir(repo.main);
    assert.equal(board, oldBoard(repo.main));
    for (const tree of repo.linked) assert.equal(boardForDir(join(tree, 'src')), board, tree);
    assert.equal(findWorkTree(join(repo.linked[0] ?? '', 'src'))?.root, repo.linked[0]);
  });

  test('a bare repository with a work tree is named after the bare folder', () => {
    const { bare, tree } = bareRepoWithWorktree();
    assert.equal(boardForDir(tree), oldBoard(bare));
    assert.match(boardForDir(tree) ?? '', /^repo\.git-[0-9a-f]{6}$/);
  });

  test('two repositories never share a board, and a folder outside any has none', () => {
    const a = repoWithWorktrees(0);
    const b = repoWithWorktrees(0);
    assert.notEqual(boardForDir(a.main), boardForDir(b.main));
    const outside = tempDir('coord-no-repo-');
    mkdirSync(join(outside, 'x'));
    assert.equal(boardForDir(join(outside, 'x')), null);
  });

  test("a path is keyed relative to its own work tree's root, so src/a.ts is one resource in every work tree", () => {
    const repo = repoWithWorktrees(2);
    const [one = '', two = ''] = repo.linked;
    assert.equal(locatePath(join(one, 'src', 'a.ts'))?.key, 'src/a.ts');
    assert.equal(locatePath(join(two, 'src', 'new', 'b.ts'))?.key, 'src/new/b.ts', 'a file not yet created');
    assert.equal(treeRelative(join(two, 'src', 'a.ts'), one), 'src/a.ts', "another work tree's file");
    assert.equal(treeRelative(join(repo.main, 'src/'), one), 'src/');
    assert.equal(treeRelative(join(repoWithWorktrees(0).main, 'src', 'a.ts'), one), null, 'another repository');
  });
});

describe('keys follow the file system', () => {
  test('on a case-sensitive file system (Linux) src/A.ts and src/a.ts are two keys; NFD and NFC spellings are one', () => {
    const repo = repoWithWorktrees(0);
    assert.equal(foldsCase(repo.main), false);
    assert.equal(locatePath(join(repo.main, 'src', 'A.ts'))?.key, 'src/A.ts');
    assert.equal(locatePath(join(repo.main, 'src', 'cafe\u0301.ts'))?.key, 'src/caf\u00e9.ts');
  });
});
