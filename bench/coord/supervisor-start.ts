/**
 * SPEC §18: from a task becoming ready to its agent process started — coord's supervisor (in process, SQLite,
 * git as the daemon runs it; already running and idle, as `coord run` waits) against a shell doing the same
 * steps with no supervision (`git worktree add` on a new branch, then start the client there). The client is a
 * stand-in `claude` that starts node and writes the time it started: what is measured is everything before it.
 *
 *   { dir, how: 'coord' | 'floor' } → ms from ready (the post committed) to the client's start
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claude } from '../../src/clients/claude.js';
import { invoke } from '../../src/core/invoke.js';
import { operations as op } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { systemClock } from '../../src/core/shared/clock.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { runGit } from '../../src/git/run-git.js';
import { supervisorBoardInProcess } from '../../src/server/supervise/daemon-supervisor.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { childMain, runChild } from '../lib/child.js';
import type { Measurement } from '../lib/types.js';

export const FILE = 'bench/coord/supervisor-start.ts';

interface Args {
  dir: string;
  how: 'coord' | 'floor';
}

export const runSupervisorStart = (a: Args): Promise<Measurement> =>
  runChild<Measurement>(FILE, a, { timeoutMs: 120_000 });

const GIT_ENV = { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' };
const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();

async function started(mark: string): Promise<number> {
  const end = Date.now() + 60_000;
  while (!existsSync(mark) || readFileSync(mark, 'utf8') === '') {
    if (Date.now() > end) throw new Error('the stand-in client never started');
    await new Promise((r) => setTimeout(r, 1));
  }
  return Number(readFileSync(mark, 'utf8'));
}

childMain<Args>(FILE, async (a) => {
  const repo = join(a.dir, 'repo');
  mkdirSync(repo);
  git(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(join(repo, 'README'), 'bench\n');
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'init']);
  const bin = join(a.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nexec "${process.execPath}" -e 'require("fs").writeFileSync(process.env.START_MARK, String(Date.now()))'\n`,
  );
  chmodSync(join(bin, 'claude'), 0o755);
  const mark = join(a.dir, 'started');
  const env = { ...process.env, ...GIT_ENV, START_MARK: mark, PATH: `${bin}:${process.env.PATH}` };
  if (a.how === 'floor') {
    const t0 = Date.now();
    spawn(
      'sh',
      ['-c', 'git worktree add -q -b coord/t-x ../repo.worktrees/t && cd ../repo.worktrees/t && exec claude'],
      {
        cwd: repo,
        env,
        stdio: 'ignore',
      },
    );
    return (await started(mark)) - t0;
  }
  // As `coord run` does on start (its repository's git directory): git's shell is up before any task is ready.
  await runGit(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  const store = new SqliteStore({ path: join(a.dir, 'coord.db') });
  const ctx = { store, clock: systemClock, presence: new Presence(), git: new GitRepos() };
  // As `coord run` does on start once its target is known (targetFor): the board learns its repository.
  await invoke(op.listWorktrees, ctx, { board: 'b', worktree: repo });
  const headless = claude.headless;
  if (!headless) throw new Error('no headless claude profile');
  const supervisor = new Supervisor(supervisorBoardInProcess(ctx), {
    board: 'b',
    repo,
    commonDir: join(repo, '.git'),
    target: 'main',
    agents: [{ client: 'claude', slots: 1 }],
    profiles: { claude: headless },
    once: false,
    retries: 0,
    backoffMs: 0,
    taskTimeoutS: 60,
    budget: {},
    pauseAfterS: 60,
    graceMs: 1000,
    keepWorktrees: true,
    leaseS: 60,
    coord: { node: process.execPath, bin: 'coord.js', hookBin: 'coord-hook.cjs', stateArgs: [] },
    scratchDir: join(a.dir, 'state', 'run'),
    env,
    holder: 'bench',
    log: () => {},
  });
  const running = supervisor.run();
  // The supervisor is up and has been waiting a while, as `coord run` is between tasks: past its first long poll
  // in claim-next (the supervisor once slept a second after each empty one, and missed a task posted then).
  await new Promise((r) => setTimeout(r, 1500));
  // The task is ready once its post has committed: timed from there (`value`), and from before the post
  // (`with_post_ms`, the post's durable commit included).
  const t0 = Date.now();
  await invoke(op.createTask, ctx, { agent: 'planner', board: 'b', title: 'x' });
  const ready = Date.now();
  const at = await started(mark);
  supervisor.stop();
  await running;
  await store.close();
  return { value: at - ready, extra: { with_post_ms: at - t0 } };
});
