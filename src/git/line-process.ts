/**
 * A child process spoken to line by line: commands written to its stdin, answers read back from its stdout one
 * line at a time — git's `update-ref --stdin` (ref-swapper.ts) and the shells that start git (git-shell.ts).
 * `line()` answers null once the process has ended with no line left for it.
 */
import { type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

export class LineProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  private readonly waiting: ((line: string | null) => void)[] = [];
  private ended = false;
  /** Node's `spawn` event: until it, an end means the process never started. */
  private spawned = false;

  constructor(command: string, args: string[], opts: SpawnOptionsWithoutStdio = {}) {
    this.child = spawn(command, args, { ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (s: string) => {
      this.buffered += s;
      this.deliver();
    });
    this.child.stderr.resume();
    this.child.stdin.on('error', () => undefined);
    this.child.once('spawn', () => {
      this.spawned = true;
    });
    const end = () => {
      this.ended = true;
      this.deliver();
    };
    this.child.on('error', end);
    // Its stdout closing is its end for a reader (the exit itself need not be waited on).
    this.child.stdout.on('close', end);
  }

  get alive(): boolean {
    return !this.ended;
  }

  /** Whether the process ever started (false: it ended with a spawn error, having run nothing). */
  get started(): boolean {
    return this.spawned;
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  line(): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.deliver();
    });
  }

  /** Whether an idle process keeps this one alive: a reader waiting on `line()` holds it with `hold(true)`. */
  hold(on: boolean): void {
    const stdout = this.child.stdout as unknown as Socket;
    if (on) stdout.ref();
    else stdout.unref();
  }

  /** Lets this process exit while the child still runs (its stdin, stdout and stderr included). */
  unref(): void {
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) (s as unknown as Socket).unref();
  }

  kill(): void {
    if (!this.ended) this.child.kill('SIGKILL');
  }

  /** Ends its stdin: the process reads end-of-file and exits when it is done. */
  close(): void {
    if (!this.ended) this.child.stdin.end();
  }

  private deliver(): void {
    for (;;) {
      const take = this.waiting[0];
      if (!take) return;
      const nl = this.buffered.indexOf('\n');
      if (nl === -1 && !this.ended) return;
      this.waiting.shift();
      if (nl === -1) {
        take(null);
        continue;
      }
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      take(line);
    }
  }
}
