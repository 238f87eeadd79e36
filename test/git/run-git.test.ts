/**
 * Every git call of the daemon goes through runGit (src/git/run-git.ts), which starts git from a long-lived
 * shell (git-shell.ts) rather than forking the daemon: the answer must be exactly what git said — bytes,
 * exit codes, stderr — whatever the arguments hold, and the deadline, a missing directory, a changed
 * environment and more calls than shells must behave as a plain spawn does.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runGit } from '../../src/git/run-git.js';
import { ROOT } from '../support/daemon.js';
import { git, testRepo } from './repo.js';

describe('git calls through the shell', () => {
  test('arguments with quotes, newlines, spaces and $ reach git as written, and NUL-separated output comes back whole', async () => {
    const r = testRepo({ "it's a file.txt": 'x\n', 'b c.txt': 'y\n' });
    const tree = git(r.main, 'rev-parse', 'HEAD^{tree}');
    const message = `it's "quoted"\n\n$HOME \`date\` \\ and a ' lone quote`;
    const made = await runGit(r.main, ['commit-tree', tree, '-m', message], {
      env: { GIT_AUTHOR_NAME: "O'Brien", GIT_AUTHOR_EMAIL: 'o@e', GIT_COMMITTER_NAME: 'c', GIT_COMMITTER_EMAIL: 'c@e' },
    });
    const commit = made.stdout.trim();
    assert.equal(git(r.main, 'log', '-1', '--format=%B', commit), message);
    assert.equal(git(r.main, 'log', '-1', '--format=%an', commit), "O'Brien");
    const listed = await runGit(r.main, ['ls-files', '-z']);
    assert.equal(listed.stdout, execFileSync('git', ['ls-files', '-z'], { cwd: r.main, encoding: 'utf8' }));
    assert.ok(listed.stdout.includes("it's a file.txt\0"));
  });

  test('an exit code listed as an answer is returned, any other fails with git’s own first stderr line', async () => {
    const r = testRepo();
    const first = r.rev('main');
    const second = r.commit(r.main, { 'src/a.ts': 'changed\n' }, 'change a');
    const no = await runGit(r.main, ['merge-base', '--is-ancestor', second, first], { ok: [1] });
    assert.equal(no.code, 1);
    await assert.rejects(runGit(r.main, ['rev-parse', '--verify', 'no-such-ref']), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'git_failed');
      assert.match(e.message, /git rev-parse --verify no-such-ref` failed: fatal: Needed a single revision/);
      return true;
    });
  });

  test('a directory that does not exist is named in the error', async () => {
    await assert.rejects(runGit('/no/such/dir/for/coord', ['status']), /\/no\/such\/dir\/for\/coord does not exist/);
  });

  test('a git call past its deadline is killed and said to be, with what git started', async () => {
    const r = testRepo();
    // A git that hangs: an alias that runs a long sleep (an odd length, to find it among the processes).
    const t0 = performance.now();
    await assert.rejects(
      runGit(r.main, ['-c', 'alias.wait=!sleep 29.71', 'wait'], { deadlineMs: 300 }),
      /killed after 0.3 s/,
    );
    assert.ok(performance.now() - t0 < 29_000, 'the call did not wait for the sleep');
    // Processes whose command line is that sleep's, read from /proc.
    const sleeping = () =>
      readdirSync('/proc')
        .filter((pid) => /^\d+$/.test(pid))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes('sleep 29.71');
          } catch {
            return false;
          }
        })
        .join(' ');
    for (let i = 0; i < 40 && sleeping() !== ''; i++) await new Promise((done) => setTimeout(done, 50));
    assert.equal(sleeping(), '', 'the sleep git started was killed with it');
    // The shell that ran it still answers.
    assert.equal((await runGit(r.main, ['rev-parse', 'HEAD'])).stdout.trim(), r.rev('main'));
  });

  test('more calls at once than there are shells all get their own answers', async () => {
    const r = testRepo();
    const commits = [r.rev('main')];
    for (let i = 0; i < 11; i++) commits.push(r.commit(r.main, { [`f${i}`]: `${i}\n` }, `c${i}`));
    const answers = await Promise.all(
      commits.map((c) => runGit(r.main, ['log', '-1', '--format=%H %s', c]).then((a) => a.stdout.trim())),
    );
    assert.deepEqual(
      answers,
      commits.map((c) => git(r.main, 'log', '-1', '--format=%H %s', c)),
    );
  });

  test('a change of process.env after the shells started reaches the next git call', async () => {
    const r = testRepo();
    await runGit(r.main, ['rev-parse', 'HEAD']);
    const before = process.env.GIT_CONFIG_GLOBAL;
    const config = join(r.top, 'global.gitconfig');
    execFileSync('git', ['config', '--file', config, 'coord.probe', 'seen']);
    process.env.GIT_CONFIG_GLOBAL = config;
    try {
      assert.equal((await runGit(r.main, ['config', '--global', 'coord.probe'])).stdout.trim(), 'seen');
    } finally {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
    }
  });

  test('a process removes its output folder at exit, and the folders of processes killed before they could', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const leftover = mkdtempSync(join(tmpdir(), `coord-git-${dead}-`));
    const live = mkdtempSync(join(tmpdir(), `coord-git-${process.pid}-`));
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${join(ROOT, 'src/git/run-git.ts')}').then((m) => m.runGit('.', ['--version']))`,
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(existsSync(leftover), false, 'the dead process’s folder is removed');
    assert.equal(existsSync(live), true, 'a live process’s folder is kept');
    const its = readdirSync(tmpdir()).filter((n) => n.startsWith(`coord-git-${run.pid}-`));
    assert.deepEqual(its, [], 'the child removed its own folder at exit');
    rmSync(live, { recursive: true, force: true });
  });
});
