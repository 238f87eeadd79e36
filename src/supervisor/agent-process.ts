/**
 * One agent process (SPEC §18): started in its own process group, so ending it ends everything it started
 * (the MCP servers, the hooks, the shells of its tools); its stdout and stderr read line by line; its last
 * lines kept for the note a failed task gets; stopped by asking (SIGTERM to the group), then, after the
 * grace period, by SIGKILL.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parsedLine } from '../clients/stream-lines.js';

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Lines kept of a process's output for the note on its task. */
export const KEPT_LINES = 20;

/** The executable `bin` names on `PATH`, or null when none is there. */
export function whichBin(bin: string, path: string | undefined): string | null {
  const candidates = isAbsolute(bin)
    ? [bin]
    : (path ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, bin));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* not here */
    }
  }
  return null;
}

export class AgentProcess {
  readonly pid: number | null;
  readonly ended: Promise<Ended>;
  readonly startedAt = Date.now();
  private readonly last: string[] = [];
  private exited = false;

  constructor(
    command: string,
    args: string[],
    opts: {
      cwd: string;
      env: NodeJS.ProcessEnv;
      onLine(stream: 'stdout' | 'stderr', line: string): void;
    },
  ) {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.pid = child.pid ?? null;
    for (const stream of ['stdout', 'stderr'] as const) {
      const decoder = new StringDecoder('utf8');
      let pending = '';
      const feed = (text: string) => {
        pending += text;
        let nl = pending.indexOf('\n');
        while (nl >= 0) {
          const line = pending.slice(0, nl).replace(/\r$/, '');
          pending = pending.slice(nl + 1);
          this.keep(line);
          opts.onLine(stream, line);
          nl = pending.indexOf('\n');
        }
      };
      child[stream].on('data', (d: Buffer) => feed(decoder.write(d)));
      child[stream].on('end', () => feed(`${decoder.end()}${pending ? '\n' : ''}`));
    }
    this.ended = new Promise<Ended>((resolve) => {
      child.on('error', (e) => {
        this.keep(String(e));
        this.exited = true;
        resolve({ code: 127, signal: null });
      });
      child.on('close', (code, signal) => {
        this.exited = true;
        // Whatever it left behind in its group (an MCP server that ignores its stdin closing) goes too.
        this.signalGroup('SIGKILL');
        resolve({ code, signal });
      });
    });
  }

  /** The last lines it printed (stdout and stderr, in arrival order), JSON event lines as `readableLine` says. */
  lastLines(): string[] {
    return [...this.last];
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Ask it to stop; after `graceMs` end it. Resolves once it has ended. */
  async stop(graceMs: number): Promise<Ended> {
    if (this.exited) return this.ended;
    this.signalGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.signalGroup('SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([this.ended, killed]);
    clearTimeout(timer);
    return this.ended;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === null) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      /* gone already */
    }
  }

  private keep(raw: string): void {
    const line = readableLine(raw);
    if (line === null || line.trim() === '') return;
    this.last.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    if (this.last.length > KEPT_LINES) this.last.shift();
  }
}

/**
 * A line of a client's output as the note on its task shows it (a person and the retry's model read that note):
 * a JSON event line (stream-json, --json) becomes its type and its message or error, e.g. `error: 429 Too Many
 * Requests`; one with neither is left out (the client's profile read what it says: its state, usage, the final
 * result's text). Any other line is kept as it is.
 */
export function readableLine(line: string): string | null {
  const e = parsedLine(line);
  if (e === null) return line;
  const error = e.error as { message?: unknown } | null | undefined;
  const said = [e.message, e.error, typeof error === 'object' ? error?.message : undefined].find(
    (t): t is string => typeof t === 'string' && t.trim() !== '',
  );
  if (said === undefined) return null;
  return typeof e.type === 'string' ? `${e.type}: ${said}` : said;
}
