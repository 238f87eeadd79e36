/**
 * `--check CMD` of the integration queue (SPEC §15): the merged commit is checked out in a temporary work
 * tree under the state directory and CMD runs there, in its own process group, with a time limit. The
 * work tree is removed and unregistered whatever happened; one left by a crash (kill -9 of the integrator)
 * is removed, and its CMD's process group killed, by `cleanLeftoverChecks` at the next start.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { oneAtATime } from './integrate-lanes.js';
import type { CheckVerdict } from './integrate-merge.js';
import { runGit } from './run-git.js';

/**
 * `git worktree add`, `remove` and `prune` of one repository, one at a time in this process: an `add` reads
 * every entry of .git/worktrees/, and one that another `add` has only begun to write fails it ("failed to
 * read .git/worktrees/X/commondir"); a `prune` could take that entry away. A window's checks start at once.
 */
const worktreeOps = new Map<string, <T>(fn: () => Promise<T>) => Promise<T>>();
function inTurn<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  let queue = worktreeOps.get(repo);
  if (!queue) {
    queue = oneAtATime();
    worktreeOps.set(repo, queue);
  }
  return queue(fn);
}

/** The folder of temporary check work trees: `<state>/integrate/`. */
export const checksDir = (stateDir: string) => join(stateDir, 'integrate');

/** How many lines of a failed check's output are kept as the note. */
export const KEPT_LINES = 30;
/** At most this much output is held in memory while a check runs; the tail is what matters. */
const KEPT_BYTES = 64 * 1024;
/** How long a failed check's pipes are read after it exited, when something it left holds them open. */
const OUTPUT_GRACE_MS = 500;

export interface CheckCommand {
  repo: string;
  stateDir: string;
  /** Run by `sh -c` in the temporary work tree. */
  command: string;
  timeoutMs: number;
  /** Part of the temporary folder's name (the task id), for a person reading `git worktree list`. */
  label: string;
}

/** Runs the check on `commit`; the temporary work tree is gone when this returns or throws. */
export async function runCheck(cmd: CheckCommand, commit: string): Promise<CheckVerdict> {
  // The integrator's pid is part of the name: a leftover is cleaned only once that process is gone.
  const name = `${cmd.label.replace(/[^A-Za-z0-9._]/g, '_')}-p${process.pid}-${randomBytes(4).toString('hex')}`;
  const dir = join(checksDir(cmd.stateDir), name);
  mkdirSync(checksDir(cmd.stateDir), { recursive: true, mode: 0o700 });
  try {
    // Checking out a large tree takes longer than run-git's default deadline.
    await inTurn(cmd.repo, () =>
      runGit(cmd.repo, ['worktree', 'add', '--detach', '--quiet', dir, commit], { deadlineMs: 300_000 }),
    );
    return await runIn(dir, cmd);
  } finally {
    await removeCheckTree(cmd.repo, dir);
  }
}

/** The variable every process a check starts inherits: what is left of a check is found by it (/proc/PID/environ). */
const MARK = 'COORD_CHECK';

function runIn(dir: string, cmd: CheckCommand): Promise<CheckVerdict> {
  return new Promise((resolve, reject) => {
    const mark = `${MARK}=${randomBytes(12).toString('hex')}`;
    // detached: CMD leads its own session and process group. A descendant that leaves both (`setsid`) still
    // carries the mark in its environment, and goes with the rest.
    const child = spawn('sh', ['-c', cmd.command], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, [MARK]: mark.slice(MARK.length + 1) },
    });
    if (child.pid !== undefined) writeFileSync(`${dir}.pid`, `${child.pid}\n${mark}\n`);
    let tail = '';
    const keep = (b: Buffer) => {
      tail = (tail + b.toString('utf8')).slice(-KEPT_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let settled = false;
    // The verdict is given when CMD itself exits or its time is up — not when its pipes close, which a
    // background process holding them would put off forever. What is left is killed and the pipes closed.
    const settle = (verdict: CheckVerdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killCheck(child.pid, mark);
      child.stdout.destroy();
      child.stderr.destroy();
      rmSync(`${dir}.pid`, { force: true });
      resolve(verdict);
    };
    const failed = (reason: string): CheckVerdict => ({
      ok: false,
      output: tail.trimEnd().split('\n').slice(-KEPT_LINES).join('\n'),
      reason,
    });
    const timer = setTimeout(
      () => settle(failed(`\`${cmd.command}\` timed out after ${Math.round(cmd.timeoutMs / 1000)} s`)),
      cmd.timeoutMs,
    );
    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      if (code === 0) return settle({ ok: true });
      // Its last output may still be in the pipes: read it until they close — or, when something left in
      // the background holds them, for a moment at most.
      const verdict = () =>
        settle(failed(`\`${cmd.command}\` failed (${code === null ? `signal ${signal}` : `exit ${code}`})`));
      child.once('close', verdict);
      setTimeout(verdict, OUTPUT_GRACE_MS).unref();
    });
  });
}

/**
 * Ends everything a check started: its process group, and every process of this user carrying its mark
 * (a `setsid` child has another group and session, but the same environment). Never throws.
 */
function killCheck(pid: number | undefined, mark: string): void {
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
  for (const other of marked(mark)) {
    try {
      process.kill(other, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/** The processes whose environment holds `mark` (none where there is no /proc). */
function marked(mark: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const found: number[] = [];
  const needle = Buffer.from(`\0${mark}\0`);
  for (const p of pids) {
    if (Number(p) === process.pid) continue;
    try {
      const env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${p}/environ`)]);
      if (env.includes(needle)) found.push(Number(p));
    } catch {
      // Another user's process, or gone.
    }
  }
  return found;
}

/** Removes a check's work tree and its registration in the repository; never throws. */
async function removeCheckTree(repo: string, dir: string): Promise<void> {
  try {
    await inTurn(repo, () => runGit(repo, ['worktree', 'remove', '--force', '--force', dir], { deadlineMs: 300_000 }));
    return;
  } catch {
    // Fall through: remove the folder by hand and prune the registration.
  }
  rmSync(dir, { recursive: true, force: true });
  await inTurn(repo, () => runGit(repo, ['worktree', 'prune'])).catch(() => undefined);
}

/** The common git directory a linked work tree belongs to, from its `.git` file (`gitdir: <common>/worktrees/<name>`). */
function commonDirOf(dir: string): string | null {
  try {
    const line = readFileSync(join(dir, '.git'), 'utf8').trim();
    return line.startsWith('gitdir: ') ? dirname(dirname(line.slice('gitdir: '.length))) : null;
  } catch {
    return null;
  }
}

/** Kills the process group of a check a crashed integrator left running, if its pid still runs there. */
function killOrphan(pidFile: string, dir: string): void {
  try {
    const [first = '', mark = ''] = readFileSync(pidFile, 'utf8').split('\n');
    const pid = Number(first);
    // Whatever carries the check's mark is its (a `setsid` child included).
    if (mark.startsWith(`${MARK}=`)) killCheck(undefined, mark);
    // Only the process whose working directory is that check's tree: a reused pid is someone else's.
    if (pid > 0 && readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already, or no /proc: nothing to kill that we can be sure is ours.
  }
}

/** Whether the integrator that made this check folder still runs (then the folder is its, not a leftover). */
function ownerAlive(name: string): boolean {
  const pid = Number(/-p(\d+)-[0-9a-f]+(\.pid)?$/.exec(name)?.[1] ?? 0);
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the check work trees a crashed integrator left (and unregisters them from their repositories),
 * killing a check command still running there. Folders of a live integrator — another one on this state
 * directory, or this process — are left alone. Answers the folders removed.
 */
export async function cleanLeftoverChecks(stateDir: string): Promise<string[]> {
  const root = checksDir(stateDir);
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    if (ownerAlive(name)) continue;
    const path = join(root, name);
    if (name.endsWith('.pid')) {
      const dir = path.slice(0, -'.pid'.length);
      killOrphan(path, dir);
      rmSync(path, { force: true });
      continue;
    }
    const common = commonDirOf(path);
    rmSync(path, { recursive: true, force: true });
    if (common !== null) await runGit(common, ['worktree', 'prune']).catch(() => undefined);
    removed.push(path);
  }
  return removed;
}
