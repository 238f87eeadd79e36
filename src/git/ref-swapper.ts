/**
 * The integration queue's compare-and-swap of the target ref (SPEC §15), without a git process per swap:
 * one `git update-ref --stdin` per repository for an integrator's turn, each swap a transaction in it
 * (`start`, `update REF NEW OLD`, `prepare`, `commit`). git checks OLD under the ref's lock at `prepare`,
 * exactly as `git update-ref REF NEW OLD` does; a refused swap makes git exit, and the next swap starts
 * another process.
 *
 * Whenever the answer is not a plain `commit: ok` (git died, was killed at its deadline, could not start),
 * the ref itself says whether the swap happened: it did if the ref now names NEW.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readRefs } from './read-refs.js';
import { runGit } from './run-git.js';

/** A swap that takes longer is killed (a ref lock held by a hung process elsewhere); the ref then answers. */
const SWAP_DEADLINE_MS = 60_000;

class UpdateRefProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(repo: string, message: string) {
    this.child = spawn('git', ['update-ref', '-m', message, '--stdin'], {
      cwd: repo,
      env: { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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
    this.child.on('error', end);
    this.child.on('close', end);
  }

  get alive(): boolean {
    return !this.ended;
  }

  private deliver(): void {
    if (!this.waiting) return;
    const nl = this.buffered.indexOf('\n');
    if (nl === -1 && !this.ended) return;
    const take = this.waiting;
    this.waiting = null;
    if (nl === -1) {
      take(null);
      return;
    }
    const line = this.buffered.slice(0, nl);
    this.buffered = this.buffered.slice(nl + 1);
    take(line);
  }

  private line(): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  /** true: `commit: ok`; false: anything else (the caller asks the ref). */
  async swap(ref: string, next: string, old: string): Promise<boolean> {
    if (this.ended) return false;
    this.child.stdin.write(`start\nupdate ${ref} ${next} ${old}\nprepare\ncommit\n`);
    const timer = setTimeout(() => this.kill(), SWAP_DEADLINE_MS);
    try {
      for (const expected of ['start: ok', 'prepare: ok', 'commit: ok'])
        if ((await this.line()) !== expected) return false;
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (!this.ended) this.child.kill('SIGKILL');
  }

  close(): void {
    if (!this.ended) this.child.stdin.end();
  }
}

/** Swaps of target refs for one turn of an integrator; `close()` ends its processes. */
export class RefSwapper {
  private readonly processes = new Map<string, UpdateRefProcess>();

  constructor(private readonly message = 'coord: integrate') {}

  /** Moves `ref` to `next` only if it still names `old`; answers whether it moved. */
  async swap(repo: string, ref: string, next: string, old: string): Promise<boolean> {
    let p = this.processes.get(repo);
    if (!p?.alive) {
      p = new UpdateRefProcess(repo, this.message);
      this.processes.set(repo, p);
    }
    if (await p.swap(ref, next, old)) return true;
    p.kill();
    this.processes.delete(repo);
    // Refused, or no clear answer: the ref says whether it moved.
    return (await readRefs(repo, [ref]))?.get(ref)?.sha === next;
  }

  close(): void {
    for (const p of this.processes.values()) p.close();
    this.processes.clear();
  }
}

/** One swap with one process: `git update-ref -m MESSAGE REF NEW OLD` (callers with no RefSwapper). */
export const swapOnce = (repo: string, ref: string, next: string, old: string, message: string): Promise<boolean> =>
  runGit(repo, ['update-ref', '-m', message, ref, next, old], { deadlineMs: SWAP_DEADLINE_MS }).then(
    () => true,
    () => false,
  );
