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
import { LineProcess } from './line-process.js';
import { readRefs } from './read-refs.js';
import { runGit } from './run-git.js';

/** A swap that takes longer is killed (a ref lock held by a hung process elsewhere); the ref then answers. */
const SWAP_DEADLINE_MS = 60_000;

class UpdateRefProcess {
  private readonly proc: LineProcess;

  constructor(repo: string, message: string) {
    this.proc = new LineProcess('git', ['update-ref', '-m', message, '--stdin'], {
      cwd: repo,
      env: { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' },
    });
  }

  get alive(): boolean {
    return this.proc.alive;
  }

  /** true: `commit: ok`; false: anything else (the caller asks the ref). */
  async swap(ref: string, next: string, old: string): Promise<boolean> {
    if (!this.proc.alive) return false;
    this.proc.write(`start\nupdate ${ref} ${next} ${old}\nprepare\ncommit\n`);
    const timer = setTimeout(() => this.proc.kill(), SWAP_DEADLINE_MS);
    try {
      for (const expected of ['start: ok', 'prepare: ok', 'commit: ok'])
        if ((await this.proc.line()) !== expected) return false;
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    this.proc.kill();
  }

  close(): void {
    this.proc.close();
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
