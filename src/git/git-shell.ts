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
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LineProcess } from './line-process.js';

/** What a call through a shell answered; `unavailable`: no shell could run it (the caller spawns git itself). */
export type ShellRun =
  | { kind: 'ran'; code: number; stdout: Buffer; stderr: Buffer; killed: boolean }
  | { kind: 'no-such-directory' }
  | { kind: 'unavailable' };

/**
 * A submit's change record asks git 5 things at once, beside other agents' looks and hooks; with 4 shells, a
 * `coord run` of two agents sent ~30 calls of 10 tasks to a plain spawn, each a fork of the daemon on its
 * main thread (~150 ms of its CPU in all). An idle shell is a few hundred KB.
 */
const SHELLS = 8;

/** A string as one shell word: single quotes, each inner quote closed, escaped and reopened. */
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The environment a shell was started with, to tell when process.env changed. */
const envKey = () => JSON.stringify(process.env);

/** The folder of this process's output files, `coord-git-<pid>-…` under the system's temporary folder. */
const PREFIX = 'coord-git-';

let dir: string | null = null;
/** This process's scratch folder (also the daemon's copies of work trees' indexes: look-index.ts). */
export function scratchDir(): string {
  return scratch();
}
function scratch(): string {
  if (dir === null) {
    removeLeftovers();
    dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
    const made = dir;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return dir;
}

/** Folders of processes that ended without removing theirs (killed by a signal): their pid is gone. */
function removeLeftovers(): void {
  try {
    for (const name of readdirSync(tmpdir())) {
      const pid = Number(/^coord-git-(\d+)-/.exec(name)?.[1]);
      if (pid > 0 && pid !== process.pid && !running(pid))
        rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  } catch {
    // Not ours to fail on: a leftover folder is two small files.
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class Shell {
  private readonly proc = new LineProcess('sh', [], { detached: true });
  /** Taken out of use (ended, or replaced after an error). */
  private retired = false;
  busy = false;
  readonly env: string;
  readonly out: string;
  readonly err: string;

  constructor(n: number, env: string) {
    this.env = env;
    this.out = join(scratch(), `${n}.out`);
    this.err = join(scratch(), `${n}.err`);
    // An idle shell keeps nothing alive; its stdout is held while a call waits for its answer.
    this.proc.unref();
  }

  /** `env`: the environment's key now (envKey, taken once per call: it is not free). */
  usable(env: string): boolean {
    return !this.retired && this.proc.alive && this.env === env;
  }

  async run(cwd: string, args: string[], env: Record<string, string>, deadlineMs: number): Promise<ShellRun> {
    const assign = Object.entries(env)
      .map(([k, v]) => `${k}=${quote(v)} `)
      .join('');
    // One compound command: the shell parses it whole, newlines inside quoted arguments included.
    this.proc.write(
      `if cd -- ${quote(cwd)} 2>/dev/null; then ${assign}git ${args.map(quote).join(' ')} </dev/null >${quote(this.out)} 2>${quote(this.err)}; echo "r $?"; else echo n; fi\n`,
    );
    this.proc.hold(true);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        if (this.proc.child.pid) process.kill(-this.proc.child.pid, 'SIGKILL');
      } catch {
        this.proc.kill();
      }
    }, deadlineMs);
    try {
      const answer = await this.proc.line();
      if (answer === 'n') return { kind: 'no-such-directory' };
      if (answer === null && !this.proc.started) {
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
      this.proc.hold(false);
    }
  }

  end(): void {
    this.proc.close();
    this.retired = true;
  }
}

/** The shell died after the command was sent: git may or may not have run, so it is not run again. */
export class ShellGone extends Error {
  override readonly name = 'ShellGone';
}

const shells: (Shell | undefined)[] = [];
/** No `sh` could start here: every call spawns git itself. */
let noShell = false;

/** A shell free for a call: an idle usable one, else a new one in the first free place; null when all are busy. */
function idleShell(): Shell | null {
  const env = envKey();
  for (let i = 0; i < SHELLS; i++) {
    const s = shells[i];
    if (s?.busy) continue;
    if (s?.usable(env)) return s;
    s?.end();
    const fresh = new Shell(i, env);
    shells[i] = fresh;
    return fresh;
  }
  return null;
}

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
  let shell: Shell | null;
  try {
    shell = idleShell();
  } catch {
    return { kind: 'unavailable' };
  }
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
