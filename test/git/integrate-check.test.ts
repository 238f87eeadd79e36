/** SPEC §15: `--check CMD` runs in a temporary work tree of the merged commit, which never outlives it. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checksDir, cleanLeftoverChecks, runCheck } from '../../src/git/integrate-check.js';
import { integrateHead } from '../../src/git/integrate-merge.js';
import { tempDir } from '../support/ctx.js';
import { waitFor } from '../support/wait-for.js';
import { git, testRepo } from './repo.js';

/** The work trees git knows of, by path. */
const worktrees = (repo: string) =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('checking a merged commit', () => {
  test('the check sees the merged files, and its work tree is removed and unregistered afterwards', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    const seen = join(state, 'seen');
    const cmd = { repo: r.main, stateDir: state, command: `cat src/b.ts > ${seen}`, timeoutMs: 60_000, label: 'k3x9' };
    const verdict = await runCheck(cmd, head);
    assert.deepEqual(verdict, { ok: true });
    assert.equal(readFileSync(seen, 'utf8'), 'b\n');
    assert.deepEqual(readdirSync(checksDir(state)), []);
    assert.deepEqual(worktrees(r.main), [r.main, wt]);
  });

  test('a failed check keeps the last lines of its output, leaves the target unchanged and no work tree behind', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    const wt = r.worktree('feat/b');
    const head = r.commit(wt, { 'src/b.ts': 'b\n' }, 'add b');
    r.commit(r.main, { README: 'x\n' }, 'person');
    const tip = r.rev('main');
    const command = 'for i in $(seq 1 100); do echo line $i; done; echo boom >&2; exit 3';
    const out = await integrateHead({
      repo: r.main,
      target: 'main',
      branch: 'feat/b',
      head,
      message: 'coord: integrate #k3x9 b',
      check: (commit) => runCheck({ repo: r.main, stateDir: state, command, timeoutMs: 60_000, label: 'k3x9' }, commit),
    });
    assert.equal(out.state, 'check_failed');
    if (out.state !== 'check_failed') return;
    assert.equal(out.reason, `\`${command}\` failed (exit 3)`);
    const lines = out.output.split('\n');
    assert.equal(lines.length, 30);
    assert.equal(lines.at(-1), 'boom');
    assert.equal(lines.at(-2), 'line 100');
    assert.equal(r.rev('main'), tip);
    assert.deepEqual(readdirSync(checksDir(state)), []);
    assert.deepEqual(worktrees(r.main), [r.main, wt]);
  });

  test('a check that hangs is killed at its time limit with everything it started', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    const pidFile = join(state, 'bg.pid');
    const command = `sleep 1000 & echo $! > ${pidFile}; echo started; wait`;
    const verdict = await runCheck(
      { repo: r.main, stateDir: state, command, timeoutMs: 1000, label: 'k3x9' },
      r.rev('main'),
    );
    assert.equal(verdict.ok, false);
    assert.match(verdict.ok ? '' : verdict.reason, /timed out after 1 s/);
    assert.equal(verdict.ok ? '' : verdict.output, 'started');
    const bg = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(bg));
    assert.deepEqual(readdirSync(checksDir(state)), []);
    assert.deepEqual(worktrees(r.main), [r.main]);
  });

  test('at its time limit a check is ended with a setsid child holding its output, and the integrator moves on at once', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    const pidFile = join(state, 'bg.pid');
    // The child leaves the check's session and process group and keeps its stdout open for a minute.
    const command = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 60' & echo started; sleep 60`;
    const verdict = await runCheck(
      { repo: r.main, stateDir: state, command, timeoutMs: 1000, label: 'k3x9' },
      r.rev('main'),
    );
    assert.equal(verdict.ok, false);
    assert.equal(verdict.ok ? '' : verdict.reason, `\`${command}\` timed out after 1 s`);
    const bg = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(bg));
    assert.deepEqual(readdirSync(checksDir(state)), []);
  });

  test('a check that exits 0 is passed, even when a setsid child it left holds its output past the time limit', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    const pidFile = join(state, 'bg.pid');
    // It exits once the child has written its pid (so the test can look for it afterwards).
    const command = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 20' & until [ -s ${pidFile} ]; do sleep 0.05; done; echo done`;
    const verdict = await runCheck(
      { repo: r.main, stateDir: state, command, timeoutMs: 1000, label: 'k3x9' },
      r.rev('main'),
    );
    assert.deepEqual(verdict, { ok: true });
    const bg = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(bg));
  });

  test('a failing check that prints tens of megabytes keeps only the last lines of its output', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    // 64 MiB of one long line, then the lines that matter.
    const command = 'head -c 67108864 /dev/zero | tr "\\0" x; echo; echo last words; exit 1';
    const verdict = await runCheck(
      { repo: r.main, stateDir: state, command, timeoutMs: 120_000, label: 'k3x9' },
      r.rev('main'),
    );
    assert.equal(verdict.ok, false);
    if (verdict.ok) return;
    assert.match(verdict.output, /last words$/);
    assert.ok(verdict.output.length <= 64 * 1024, `kept ${verdict.output.length} characters`);
  });

  test('checks started at once in one repository each get a work tree of their own, and all are removed', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    const cmd = (i: number) => ({
      repo: r.main,
      stateDir: state,
      command: 'test -f src/a.ts',
      timeoutMs: 60_000,
      label: `t${i}`,
    });
    const verdicts = await Promise.all(Array.from({ length: 24 }, (_, i) => runCheck(cmd(i), r.rev('main'))));
    assert.deepEqual(
      verdicts,
      Array.from({ length: 24 }, () => ({ ok: true })),
    );
    assert.deepEqual(readdirSync(checksDir(state)), []);
    assert.deepEqual(worktrees(r.main), [r.main]);
  });

  test('a check work tree left by a dead integrator is removed and unregistered at the next start; a live one is left alone', async () => {
    const r = testRepo();
    const state = tempDir('coord-state-');
    mkdirSync(checksDir(state));
    // pid 2^22+1 is above Linux's pid_max: nobody runs there.
    const dead = join(checksDir(state), 'k3x9-p4194305-00aa11bb');
    const live = join(checksDir(state), `m2q1-p${process.pid}-00aa11cc`);
    git(r.main, 'worktree', 'add', '--detach', '-q', dead, 'main');
    git(r.main, 'worktree', 'add', '--detach', '-q', live, 'main');
    writeFileSync(`${dead}.pid`, '4194306');
    assert.deepEqual(await cleanLeftoverChecks(state), [dead]);
    assert.equal(existsSync(dead), false);
    assert.equal(existsSync(`${dead}.pid`), false);
    assert.deepEqual(worktrees(r.main), [r.main, live]);
  });
});
