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
import type { CheckVerdict } from './integrate-merge.js';
import { runGit } from './run-git.js';

/** The folder of temporary check work trees: `<state>/integrate/`. */
export const checksDir = (stateDir: string) => join(stateDir, 'integrate');

/** How many lines of a failed check's output are kept as the note. */
export const KEPT_LINES = 30;
/** At most this much output is held in memory while a check runs; the tail is what matters. */
const KEPT_BYTES = 64 * 1024;

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
    await runGit(cmd.repo, ['worktree', 'add', '--detach', '--quiet', dir, commit], { deadlineMs: 300_000 });
    return await runIn(dir, cmd);
  } finally {
    await removeCheckTree(cmd.repo, dir);
  }
}

function runIn(dir: string, cmd: CheckCommand): Promise<CheckVerdict> {
  return new Promise((resolve, reject) => {
    // detached: its own process group, so the time limit kills CMD and everything it started.
    const child = spawn('sh', ['-c', cmd.command], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) writeFileSync(`${dir}.pid`, String(child.pid));
    let tail = '';
    const keep = (b: Buffer) => {
      tail = (tail + b.toString('utf8')).slice(-KEPT_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, cmd.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever CMD left running in the background goes with it.
      killGroup();
      rmSync(`${dir}.pid`, { force: true });
      if (code === 0 && !timedOut) return resolve({ ok: true });
      const output = tail.trimEnd().split('\n').slice(-KEPT_LINES).join('\n');
      const reason = timedOut
        ? `\`${cmd.command}\` did not finish within ${Math.round(cmd.timeoutMs / 1000)} s and was killed`
        : `\`${cmd.command}\` failed (${code === null ? `signal ${signal}` : `exit ${code}`})`;
      resolve({ ok: false, output, reason });
    });
  });
}

/** Removes a check's work tree and its registration in the repository; never throws. */
async function removeCheckTree(repo: string, dir: string): Promise<void> {
  try {
    await runGit(repo, ['worktree', 'remove', '--force', '--force', dir], { deadlineMs: 300_000 });
    return;
  } catch {
    // Fall through: remove the folder by hand and prune the registration.
  }
  rmSync(dir, { recursive: true, force: true });
  await runGit(repo, ['worktree', 'prune']).catch(() => undefined);
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
    const pid = Number(readFileSync(pidFile, 'utf8'));
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
