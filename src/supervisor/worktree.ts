/**
 * SPEC §18 "One task, one agent, one work tree": the task's work tree on `coord/<id>-<slug>`, made from the
 * target's current tip (never from anyone's files: a dirty main work tree does not matter), made runnable
 * before the agent starts — the ignored files `.worktreeinclude` lists copied from the main work tree, and
 * `--setup CMD` run there. A retry finds the work tree and its branch as the last agent left them.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CoordError } from '../core/errors.js';
import { branchTip } from '../git/branch.js';
import { readRefs } from '../git/read-refs.js';
import { runGit, splitZ } from '../git/run-git.js';
import { listWorktrees } from '../git/worktree-list.js';
import { KEPT_LINES } from './agent-process.js';

const ADD_DEADLINE_MS = 120_000;

export interface TaskTree {
  path: string;
  branch: string;
  created: boolean;
  /** A tree made now: the commit it was made at (the target's tip then). */
  head?: string;
}

/** Once, as the supervisor starts: how the repository keeps its refs is learnt before a task is on its way. */
export async function warmTaskTrees(repo: string, target: string): Promise<void> {
  await readRefs(repo, [`refs/heads/${target}`]).catch(() => null);
}

/** The task's work tree: the existing one at `path` (a retry), else a new one on `branch` from `target`. */
export async function taskTree(repo: string, target: string, branch: string, path: string): Promise<TaskTree> {
  // A retry finds the work tree where the last try left it; only then is git asked which it is.
  if (existsSync(path)) {
    const known = (await listWorktrees(repo)).find((w) => w.path === path);
    if (known) return { path, branch: known.branch ?? branch, created: false };
    throw new CoordError(
      'invalid_request',
      `${path} exists and is not a work tree of ${repo}: move it away, or pass --worktrees DIR`,
    );
  }
  mkdirSync(dirname(path), { recursive: true });
  // The usual case first, in one git call (this is on the path from a task ready to its agent started):
  // a new branch from the target's tip, read from the ref's file. Only when git refuses is it asked why.
  const ref = `refs/heads/${target}`;
  const tip = (await readRefs(repo, [ref]))?.get(ref)?.sha;
  const made = await runGit(repo, ['worktree', 'add', '-b', branch, path, tip ?? ref], {
    ok: [128],
    deadlineMs: ADD_DEADLINE_MS,
  });
  if (made.code === 0) return { path, branch, created: true, ...(tip ? { head: tip } : {}) };
  const [left, tipNow] = await Promise.all([branchTip(repo, branch), branchTip(repo, target)]);
  // A branch left by an earlier run (its work tree removed) is continued, not reset.
  if (left !== null) {
    await runGit(repo, ['worktree', 'add', path, branch], { deadlineMs: ADD_DEADLINE_MS });
    return { path, branch, created: true };
  }
  if (tipNow === null)
    throw new CoordError('invalid_request', `${repo} has no branch ${target} to make work trees from`);
  throw new CoordError('internal', `git worktree add ${path}: ${made.stderr.trim().split('\n')[0] ?? ''}`);
}

/**
 * The ignored files of the main work tree that `.worktreeinclude` (gitignore syntax) names, copied into
 * `tree` where it has none of its own. Answers the paths copied.
 */
export async function copyIncluded(main: string, tree: string): Promise<string[]> {
  const list = join(main, '.worktreeinclude');
  if (!existsSync(list)) return [];
  const named = await runGit(main, ['ls-files', '-z', '--others', '--ignored', `--exclude-from=${list}`]);
  const ignored = new Set(
    splitZ((await runGit(main, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard'])).stdout),
  );
  const copied: string[] = [];
  for (const rel of splitZ(named.stdout)) {
    if (!ignored.has(rel) || existsSync(join(tree, rel))) continue;
    mkdirSync(dirname(join(tree, rel)), { recursive: true });
    copyFileSync(join(main, rel), join(tree, rel));
    copied.push(rel);
  }
  return copied;
}

/** `--setup CMD` in the work tree, through the shell, with its deadline: ok, or its last lines. */
export function runSetup(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  deadlineMs: number,
): Promise<{ ok: true } | { ok: false; lines: string[] }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (d: Buffer) => {
      out = (out + d.toString('utf8')).slice(-16_384);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      out += `\n(setup still running after ${Math.round(deadlineMs / 1000)} s: stopped)`;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, deadlineMs);
    const lines = () =>
      out
        .split('\n')
        .filter((l) => l.trim())
        .slice(-KEPT_LINES);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, lines: [String(e)] });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(
        code === 0 ? { ok: true } : { ok: false, lines: [...lines(), `(setup exited with ${code ?? 'a signal'})`] },
      );
    });
  });
}

/** The work tree's branch has nothing the target lacks and no uncommitted change: safe to remove. */
export async function removableTree(tree: string, target: string): Promise<boolean> {
  const dirty = await runGit(tree, ['status', '--porcelain', '-z']).catch(() => null);
  if (dirty === null || dirty.stdout !== '') return false;
  const ahead = await runGit(tree, ['rev-list', '--count', `refs/heads/${target}..HEAD`]).catch(() => null);
  return ahead !== null && ahead.stdout.trim() === '0';
}

export async function removeTree(repo: string, tree: string): Promise<void> {
  await runGit(repo, ['worktree', 'remove', tree], { deadlineMs: ADD_DEADLINE_MS });
}
