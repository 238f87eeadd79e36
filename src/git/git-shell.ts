/**
 * git started by a long-lived `sh`, not by Node. Node starts a process by fork(), whose cost grows with the
 * parent's memory: a git call from the daemon (~100 MB) took ~5 ms where the same call from a shell loop took
 * ~2 ms (integration bench, issue 22). A small shell forks cheaply; Node writes it one command per call and
 * reads git's exit code back, with stdout and stderr in two files of this process's own temporary directory.
 * Each shell leads its own process group: a call past its deadline kills the group (the shell, git, and
 * anything git started), and the next call starts another shell.
 *
 * A few shells at most run at once, each one call at a time; a call that finds every shell busy, or no shell
 * that can start, is answered by a plain spawn (run-git.ts). A shell started under another environment
 * (process.env changed since) is replaced. The shells end with this process: their stdin closes, they read
 * end-of-file and exit.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** What a call through a shell answered; `unavailable`: no shell could run it (the caller spawns git itself). */
export type ShellRun =
  | { kind: 'ran'; code: number; stdout: Buffer; stderr: Buffer; killed: boolean }
  | { kind: 'no-such-directory' }
  | { kind: 'unavailable' };

const SHELLS = 4;

/** A string as one shell word: single quotes, each inner quote closed, escaped and reopened. */
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The environment a shell was started with, to tell when process.env changed. */
const envKey = () => JSON.stringify(process.env);

let dir: string | null = null;
function scratch(): string {
  if (dir === null) {
    dir = mkdtempSync(join(tmpdir(), 'coord-git-'));
    const made = dir;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return dir;
}

class Shell {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  private lines: ((line: string | null) => void)[] = [];
  private ended = false;
  /** Node's `spawn` event: until it, an `error` means no shell could start (git never ran). */
  private started = false;
  busy = false;
  readonly env = envKey();
  readonly out: string;
  readonly err: string;

  constructor(n: number) {
    this.out = join(scratch(), `${n}.out`);
    this.err = join(scratch(), `${n}.err`);
    this.child = spawn('sh', [], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (s: string) => {
      this.buffered += s;
      this.deliver();
    });
    this.child.stderr.resume();
    this.child.stdin.on('error', () => undefined);
    const end = () => {
      this.ended = true;
      this.deliver();
    };
    this.child.once('spawn', () => {
      this.started = true;
    });
    this.child.on('error', end);
    // Its stdout closing is the end (the exit itself is not waited on: the process handle is unref'd).
    this.child.stdout.on('close', end);
    // An idle shell keeps nothing alive; its stdout is held while a call waits for its answer.
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) (s as unknown as Socket).unref();
  }

  get usable(): boolean {
    return !this.ended && this.env === envKey();
  }

  private deliver(): void {
    for (;;) {
      const take = this.lines[0];
      if (!take) return;
      const nl = this.buffered.indexOf('\n');
      if (nl === -1) {
        if (!this.ended) return;
        this.lines.shift();
        take(null);
        continue;
      }
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      this.lines.shift();
      take(line);
    }
  }

  private line(): Promise<string | null> {
    return new Promise((resolve) => {
      this.lines.push(resolve);
      this.deliver();
    });
  }

  async run(cwd: string, args: string[], env: Record<string, string>, deadlineMs: number): Promise<ShellRun> {
    const assign = Object.entries(env)
      .map(([k, v]) => `${k}=${quote(v)} `)
      .join('');
    // One compound command: the shell parses it whole, newlines inside quoted arguments included.
    this.child.stdin.write(
      `if cd -- ${quote(cwd)} 2>/dev/null; then ${assign}git ${args.map(quote).join(' ')} </dev/null >${quote(this.out)} 2>${quote(this.err)}; echo "r $?"; else echo n; fi\n`,
    );
    (this.child.stdout as unknown as Socket).ref();
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        if (this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        this.child.kill('SIGKILL');
      }
    }, deadlineMs);
    try {
      const answer = await this.line();
      if (answer === 'n') return { kind: 'no-such-directory' };
      if (answer === null && !this.started) {
        noShell = true;
        return { kind: 'unavailable' };
      }
      if (answer === null || !answer.startsWith('r ')) {
        if (killed) return { kind: 'ran', code: -1, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), killed };
        throw new ShellGone();
      }
      return {
        kind: 'ran',
        code: Number(answer.slice(2)),
        stdout: readFileSync(this.out),
        stderr: readFileSync(this.err),
        killed,
      };
    } finally {
      clearTimeout(timer);
      (this.child.stdout as unknown as Socket).unref();
    }
  }

  end(): void {
    if (!this.ended) this.child.stdin.end();
    this.ended = true;
  }
}

/** The shell died after the command was sent: git may or may not have run, so it is not run again. */
export class ShellGone extends Error {
  override readonly name = 'ShellGone';
}

const shells: (Shell | undefined)[] = [];
/** No `sh` could start here: every call spawns git itself. */
let noShell = false;

/**
 * Runs `git args` in `cwd` with `env` added, through an idle shell. `unavailable` when none is free or can
 * start (the caller spawns git itself); throws ShellGone when the shell died during the call.
 */
export async function gitThroughShell(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  deadlineMs: number,
): Promise<ShellRun> {
  if (noShell) return { kind: 'unavailable' };
  let slot = -1;
  for (let i = 0; i < SHELLS; i++) {
    const s = shells[i];
    if (s?.busy) continue;
    if (s && !s.usable) s.end();
    if (!s?.usable) {
      try {
        shells[i] = new Shell(i);
      } catch {
        return { kind: 'unavailable' };
      }
    }
    slot = i;
    break;
  }
  const shell = shells[slot];
  if (!shell) return { kind: 'unavailable' };
  shell.busy = true;
  try {
    return await shell.run(resolve(cwd), args, env, deadlineMs);
  } catch (e) {
    shell.end();
    throw e;
  } finally {
    shell.busy = false;
  }
}
