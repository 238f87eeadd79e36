/**
 * Running git for the integration queue (SPEC §15): every call has a deadline, keeps its stderr for the
 * error, and runs with a fixed locale and no prompt, so its output is parsed the same everywhere.
 */
import { spawn } from 'node:child_process';

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Killed past this many milliseconds (default 60 s: a merge of a large repository still fits). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** A git command that did not do what the caller needed; its words and stderr name the failure. */
export class GitFailure extends Error {
  override readonly name = 'GitFailure';
  constructor(
    readonly args: string[],
    readonly run: GitRun,
  ) {
    super(`git ${args.join(' ')} failed (${run.code}): ${run.stderr.trim().split('\n').slice(-3).join(' / ')}`);
  }
}

const ENV = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };

/** Runs `git args` in `cwd`; resolves with the exit code (never rejects for a non-zero one). */
export function git(cwd: string, args: string[], opts: GitOptions = {}): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: { ...process.env, ...ENV, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code: code ?? 128,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: signal ? `${stderr}killed by ${signal} (deadline)` : stderr,
      });
    });
  });
}

/** Runs git and answers its trimmed stdout; any non-zero exit is a GitFailure. */
export async function gitOk(cwd: string, args: string[], opts?: GitOptions): Promise<string> {
  const run = await git(cwd, args, opts);
  if (run.code !== 0) throw new GitFailure(args, run);
  return run.stdout.trim();
}

/** NUL-separated output (`-z`) split into its fields, the empty tail dropped. Parsed here and only here. */
export const splitZ = (out: string): string[] => out.split('\0').filter((s) => s.length > 0);
