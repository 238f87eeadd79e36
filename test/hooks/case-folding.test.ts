/**
 * SPEC §10 "one file, one key": on a case-insensitive file system, case is folded — `src/A.ts` and
 * `src/a.ts` are one file, so a lock on one spelling stops an edit through any other. Tested on a real
 * case-insensitive, case-preserving file system mounted for the test: a FUSE file system
 * (test/support/casefold-fs.py) the kernel mounts and git and coord use like any other. Linux kernels
 * built without CONFIG_UNICODE (no ext4 casefold), without XFS ascii-ci and without vfat (this one:
 * 6.18, the CI image) cannot mount a native one. Skipped, with the reason, where FUSE cannot be mounted
 * (no /dev/fuse, no fusepy — Debian's python3-fusepy —, or no right to mount).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { foldsCase } from '../../src/state-dir/board-name.js';
import { tempDir } from '../support/ctx.js';
import { ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { runCoord } from './run-hook.js';

const PYTHON = ['/usr/bin/python3', 'python3'].find(
  (p) =>
    spawnSync(p, ['-c', 'import fusepy'], { stdio: 'ignore' }).status === 0 ||
    spawnSync(p, ['-c', 'import fuse'], { stdio: 'ignore' }).status === 0,
);
const FUSERMOUNT = ['fusermount3', 'fusermount'].find((b) => spawnSync('which', [b], { stdio: 'ignore' }).status === 0);

/** Why this machine cannot mount the test's file system, or null when it can (so far as can be told first). */
function cannotMount(): string | null {
  if (process.platform !== 'linux') return `FUSE mounts are tested on Linux only (this is ${process.platform})`;
  if (!existsSync('/dev/fuse')) return 'no /dev/fuse: this machine cannot mount a FUSE file system';
  if (!PYTHON) return 'no Python with fusepy (Debian: apt-get install python3-fusepy fuse3)';
  if (!FUSERMOUNT) return 'no fusermount (Debian: apt-get install fuse3)';
  return null;
}

const mounted = (dir: string): boolean => spawnSync('mountpoint', ['-q', dir], { stdio: 'ignore' }).status === 0;

describe('case folding on a case-insensitive file system', () => {
  const why = cannotMount();
  let d: SpawnedDaemon | undefined;
  let fs: ChildProcess | undefined;
  let mnt = '';
  let repo = '';
  let skip: string | null = why;
  before(async () => {
    if (skip) return;
    const top = tempDir('coord-casefold-');
    const backing = join(top, 'backing');
    mnt = join(top, 'mnt');
    mkdirSync(backing);
    mkdirSync(mnt);
    fs = spawn(PYTHON ?? 'python3', [join(ROOT, 'test/support/casefold-fs.py'), backing, mnt], { stdio: 'ignore' });
    const exited = new Promise<void>((r) => fs?.once('exit', () => r()));
    const up = await Promise.race([
      waitFor(async () => mounted(mnt), 'the FUSE file system mounted', 15_000).then(
        () => true,
        () => false,
      ),
      exited.then(() => false),
    ]);
    if (!up) {
      skip = 'the FUSE file system could not be mounted here (no right to mount, or FUSE refused it)';
      return;
    }
    repo = join(mnt, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src', 'A.ts'), 'export const a = 1;\n');
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...a], { cwd: repo, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    d = await spawnDaemon();
  });
  after(async () => {
    await d?.stop();
    if (mnt && mounted(mnt)) spawnSync(FUSERMOUNT ?? 'fusermount', ['-u', mnt], { stdio: 'ignore' });
    fs?.kill();
  });

  test('a lock on src/A.ts refuses an edit of src/a.ts and SRC/A.TS, and the key is the folded spelling', async (t) => {
    if (skip || !d) {
      t.skip(skip ?? 'no daemon');
      return;
    }
    assert.equal(foldsCase(repo), true, 'the mounted file system folds case');
    const state = d.stateDir;
    const held = await runCoord(
      ['lock', 'src/A.ts', '--agent', 'alice', '--lease', '600', '--state', state, '--json'],
      {
        cwd: repo,
      },
    );
    assert.equal(held.code, 0, held.stderr);
    const edit = (file: string) =>
      runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', state], {
        stdin: { hook_event_name: 'PreToolUse', cwd: repo, tool_name: 'Edit', tool_input: { file_path: file } },
        env: { CLAUDE_CODE_SESSION_ID: 'sess-case' },
        cwd: repo,
      });
    for (const spelling of ['src/a.ts', 'SRC/A.TS', join(repo, 'Src', 'a.TS')]) {
      const r = await edit(spelling.startsWith('/') ? spelling : join(repo, spelling));
      const reason = r.stdout ? JSON.parse(r.stdout).hookSpecificOutput?.permissionDecisionReason : '';
      assert.match(
        String(reason),
        /^lock_conflict: src\/a\.ts is held by alice/,
        `${spelling}: ${r.stdout}${r.stderr}`,
      );
    }
  });
});
