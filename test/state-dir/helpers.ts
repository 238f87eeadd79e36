/** Shared helpers for the locks tests: temp state dirs, workers, polling. */
import { type ChildProcess, spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./fixtures/lock-worker.ts', import.meta.url));

export function makeStateDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'coord-locks-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export { waitFor } from '../support/wait-for.js';

export interface Worker {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The next JSON line the worker prints. */
  next(): Promise<Record<string, unknown>>;
  send(line: string): void;
  /** Resolves with the exit code (null when killed by a signal) once stdio is closed. */
  readonly exited: Promise<number | null>;
  /** SIGKILL the worker and wait until the kernel has reaped it. */
  kill9(): Promise<void>;
}

export function startWorker(...args: string[]): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (child.pid === undefined) throw new Error('worker did not start');
  const queue: Record<string, unknown>[] = [];
  const waiters: ((v: Record<string, unknown>) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(value);
    else queue.push(value);
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    pid: child.pid,
    exited,
    next: () => {
      const value = queue.shift();
      if (value) return Promise.resolve(value);
      return new Promise((resolve, reject) => {
        waiters.push(resolve);
        exited.then((code) => reject(new Error(`worker exited (${code})`)));
      });
    },
    send: (line) => child.stdin?.write(`${line}\n`),
    kill9: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
      }
      await exited;
    },
  };
}

/** Run a worker to completion and return the first line it printed. */
export async function runWorker(...args: string[]): Promise<Record<string, unknown>> {
  const worker = startWorker(...args);
  const first = await worker.next();
  await worker.exited;
  return first;
}

export interface FileFingerprint {
  readonly ino: number;
  readonly size: number;
  readonly mode: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/** Name → fingerprint of every entry in `dir`, except the names in `skip`. */
export function fingerprint(dir: string, skip: readonly string[] = []): Record<string, FileFingerprint> {
  const out: Record<string, FileFingerprint> = {};
  for (const name of readdirSync(dir).sort()) {
    if (skip.includes(name)) continue;
    const s = lstatSync(join(dir, name));
    out[name] = {
      ino: s.ino,
      size: s.size,
      mode: s.mode,
      mtimeMs: s.mtimeMs,
      ctimeMs: s.ctimeMs,
    };
  }
  return out;
}
