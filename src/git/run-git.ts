/**
 * git is an edge, like a database driver: every call goes through here —
 * spawned asynchronously (the daemon keeps answering while git works), with a
 * deadline, and a failure becomes `CoordError('git_failed')` naming the
 * command and git's own stderr line (503, never a 500).
 */
import { spawn } from 'node:child_process';
import { CoordError } from '../core/errors.js';
import { gitThroughShell, ShellGone } from './git-shell.js';

/** A git call that takes longer is killed: a hung git must not hold an answer hostage. */
export const GIT_DEADLINE_MS = 10_000;
/** Output beyond this is cut (counts are taken from what arrived; lists are bounded by callers). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `git args…` in `cwd`. `ok` lists exit codes that are answers rather than failures
 * (`merge-base --is-ancestor` answers 1 for "no"). `env` adds variables (a commit's identity).
 */
export async function runGit(
  cwd: string,
  args: string[],
  opts: { ok?: number[]; deadlineMs?: number; env?: Record<string, string> } = {},
): Promise<GitRun> {
  const command = `git ${args.join(' ')}`;
  const deadlineMs = opts.deadlineMs ?? GIT_DEADLINE_MS;
  // GIT_OPTIONAL_LOCKS=0: a status must not take index.lock and make an agent's own `git add` fail.
  const env = { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', ...opts.env };
  let run: Awaited<ReturnType<typeof gitThroughShell>>;
  try {
    run = await gitThroughShell(cwd, args, env, deadlineMs);
  } catch (e) {
    if (e instanceof ShellGone) throw failed(command, 'the shell running git ended during the call');
    throw e;
  }
  if (run.kind === 'no-such-directory') throw failed(command, `${cwd} does not exist`);
  if (run.kind === 'unavailable') return spawnGit(cwd, args, env, deadlineMs, opts.ok, command);
  const stdout = run.stdout.subarray(0, MAX_OUTPUT_BYTES).toString('utf8');
  const stderr = run.stderr.toString('utf8');
  if (run.killed) throw failed(command, `killed after ${deadlineMs / 1000} s`);
  // 127: the shell found no git to run.
  if (run.code === 127) throw failed(command, firstLine(stderr) || 'git is not installed');
  if (run.code === 0 || opts.ok?.includes(run.code)) return { code: run.code, stdout, stderr };
  throw failed(command, firstLine(stderr) || `exit code ${run.code}`);
}

/** The same call as a process of this one (no shell could be used). */
function spawnGit(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  deadlineMs: number,
  ok: number[] | undefined,
  command: string,
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', args, {
        cwd,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      reject(failed(command, (e as Error).message));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout?.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_OUTPUT_BYTES) out.push(c);
    });
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(failed(command, e.code === 'ENOENT' ? `git is not installed, or ${cwd} does not exist` : e.message));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (signal) return reject(failed(command, `killed after ${deadlineMs / 1000} s`));
      if (code === 0 || ok?.includes(code ?? -1)) return resolve({ code: code ?? 0, stdout, stderr });
      reject(failed(command, firstLine(stderr) || `exit code ${code}`));
    });
  });
}

const firstLine = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0) ?? '';

function failed(command: string, line: string): CoordError {
  return new CoordError('git_failed', `\`${command}\` failed: ${line}`, { command, stderr: line });
}

/** `-z` output: NUL-separated fields, the last one empty. */
export const splitZ = (s: string): string[] => {
  const parts = s.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
};
