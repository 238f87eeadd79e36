/**
 * SPEC §10 git guard: `coord guard install` in a real repository (its hook shared by a linked worktree):
 * a commit staging a file another agent holds is refused; COORD_GUARD=warn commits; an existing
 * pre-commit hook still runs, after coord's check.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { childEnv, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

describe('coord guard install', () => {
  let d: SpawnedDaemon;
  let repo: { main: string; linked: string[] };
  const commit = (cwd: string, file: string, env: NodeJS.ProcessEnv = {}) => {
    writeFileSync(join(cwd, file), `${Date.now()}\n`);
    const git = (...args: string[]) =>
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd,
        encoding: 'utf8',
        env: childEnv({
          COORD_STATE: d.stateDir,
          COORD_AGENT: '',
          COORD_GUARD: '',
          CLAUDE_CODE_SESSION_ID: '',
          ...env,
        }),
      });
    git('reset', '-q'); // what an earlier refused commit left staged
    git('add', file);
    return git('commit', '-q', '-m', `change ${file}`);
  };
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(1);
    // A hook the repository already had: it must keep running.
    const hooks = join(repo.main, '.git', 'hooks');
    writeFileSync(join(hooks, 'pre-commit'), `#!/bin/sh\necho ran >> "${join(repo.main, '.git', 'old-hook-ran')}"\n`);
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    const installed = await runCoord(['guard', 'install', '--state', d.stateDir], { cwd: repo.linked[0] ?? '' });
    assert.equal(installed.code, 0, installed.stderr);
    assert.match(installed.stdout, /chained|runs the hook that was there/);
    const board = boardForDir(repo.main);
    const lock = await d.fetch('/v1/locks', {
      method: 'POST',
      json: { agent: 'other-agent', board, resources: ['src/a.ts'], lease_s: 600 },
    });
    assert.equal(lock.status, 201);
  });
  after(async () => {
    await d.stop();
  });

  test('a commit staging a file another agent holds is refused with the lock_conflict line, from any worktree', async () => {
    for (const tree of [repo.main, repo.linked[0] ?? '']) {
      const r = commit(tree, 'src/a.ts');
      assert.notEqual(r.status, 0, `${tree}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /lock_conflict: src\/a\.ts is held by other-agent until /);
    }
  });

  test('a commit of free files goes through, and the hook that was there before still runs', async () => {
    const r = commit(repo.main, 'src/free.ts');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(repo.main, '.git', 'old-hook-ran')));
  });

  test('COORD_GUARD=warn commits with a warning; COORD_GUARD=off says nothing', async () => {
    const warned = commit(repo.main, 'src/a.ts', { COORD_GUARD: 'warn' });
    assert.equal(warned.status, 0, warned.stderr);
    assert.match(warned.stderr, /COORD_GUARD=warn.*lock_conflict: src\/a\.ts/);
    const off = commit(repo.main, 'src/a.ts', { COORD_GUARD: 'off' });
    assert.equal(off.status, 0);
    assert.doesNotMatch(off.stderr, /coord/);
  });

  test('a rename of a file another agent holds is refused: git mv then commit checks the source as well as the destination', async () => {
    const env = childEnv({ COORD_STATE: d.stateDir, COORD_AGENT: '', COORD_GUARD: '', CLAUDE_CODE_SESSION_ID: '' });
    const git = (...args: string[]) =>
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: repo.main,
        encoding: 'utf8',
        env,
      });
    git('reset', '-q');
    git('checkout', '-q', '--', '.');
    assert.equal(git('mv', 'src/a.ts', 'src/renamed.ts').status, 0);
    const r = git('commit', '-q', '-m', 'move the locked file away');
    assert.notEqual(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /lock_conflict: src\/a\.ts is held by other-agent/);
    git('reset', '-q');
    git('checkout', '-q', '--', '.');
    rmSync(join(repo.main, 'src', 'renamed.ts'));
  });

  test('a commit staging a path too long for a lock key, under a folder another agent holds, is refused (never skipped)', async () => {
    const board = boardForDir(repo.main);
    const lock = await d.fetch('/v1/locks', {
      method: 'POST',
      json: { agent: 'other-agent', board, resources: ['lib/'], lease_s: 600 },
    });
    assert.equal(lock.status, 201);
    const deep = join('lib', ...Array.from({ length: 60 }, (_, i) => `folder-number-${String(i).padStart(3, '0')}`));
    mkdirSync(join(repo.main, deep), { recursive: true });
    const r = commit(repo.main, join(deep, 'x.ts'));
    assert.notEqual(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /lock_conflict: lib\/folder-number-000\/.* is held by other-agent \(as lib\/\)/);
  });

  test('installing twice changes nothing, and remove puts the old hook back', async () => {
    const path = join(repo.main, '.git', 'hooks', 'pre-commit');
    const first = readFileSync(path, 'utf8');
    await runCoord(['guard', 'install', '--state', d.stateDir], { cwd: repo.main });
    assert.equal(readFileSync(path, 'utf8'), first);
    await runCoord(['guard', 'remove'], { cwd: repo.main });
    assert.match(readFileSync(path, 'utf8'), /old-hook-ran/);
  });
});
