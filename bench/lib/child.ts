/**
 * Child-process plumbing. Every measurement that could be disturbed by the bench
 * process's own heap (or that must be a separate process, like a server and its
 * load generator) runs in a fresh `node --import tsx <file>` child.
 *
 * Protocol (stdout lines):
 *   @@BENCH <json>   the child's result (runChild resolves with it)
 *   @@SKIP <reason>  the child cannot run here (runChild rejects with SkipError)
 *   @@READY <json>   a long-lived server is listening (startServer resolves)
 * Arguments travel as JSON in the BENCH_ARGS environment variable.
 * A child exits when its stdin closes, so a killed bench never leaves orphans.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkipError } from './types.js';

/** The repository root (children get it from the parent: a bundled child's own URL is under bench/.cache). */
export const REPO_ROOT = process.env.BENCH_REPO_ROOT ?? fileURLToPath(new URL('../../', import.meta.url));
const TSX = import.meta.resolve('tsx');

const live = new Set<ChildProcess>();
/** Kills `child` with the others if the bench exits early (spawnTs tracks its own children). */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}
function killAll(): void {
  for (const c of live) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAll();
    process.exit(130);
  });
}

export interface SpawnOptions {
  /** Kill the child and fail after this long (default 120 s). */
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Extra node flags, e.g. ['--cpu-prof']. */
  nodeArgs?: string[];
  /** 'auto' (default): a plain-JS bundle when the file only imports bench/ code and packages, else tsx. */
  loader?: 'auto' | 'tsx';
}

/** Resolves a repo-relative or absolute path. */
export const repoPath = (p: string): string => resolve(REPO_ROOT, p);
const entryId = (file: string): string => relative(REPO_ROOT, repoPath(file));

type Esbuild = typeof import('esbuild');
let esbuild: Esbuild | null | undefined;
const bundles = new Map<string, string | null>();

/**
 * A child written in TypeScript normally runs under tsx, whose loader thread costs
 * ~0.2 s of start-up and ~15-20 MB of RSS. Files whose import graph stays inside
 * bench/ (floors, peers, clients) are instead bundled once per run with esbuild
 * (tsx's own dependency) into bench/.cache/js and run by plain node: faster to
 * start, and an honest RSS floor. Anything importing coord's sources (src/, test/),
 * which may rely on import.meta.url, keeps running under tsx.
 */
async function bundled(file: string): Promise<string | null> {
  const id = entryId(file);
  if (bundles.has(id)) return bundles.get(id) ?? null;
  let out: string | null = null;
  try {
    esbuild ??= (await import('esbuild')) as Esbuild;
    const outfile = join(REPO_ROOT, 'bench/.cache/js', `${id.replace(/[\\/]/g, '__')}.mjs`);
    mkdirSync(join(REPO_ROOT, 'bench/.cache/js'), { recursive: true });
    const r = esbuild.buildSync({
      entryPoints: [repoPath(file)],
      absWorkingDir: REPO_ROOT,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(r.metafile?.inputs ?? {});
    out = inputs.length > 0 && inputs.every((p) => p.startsWith('bench/')) ? outfile : null;
  } catch {
    esbuild = null;
    out = null;
  }
  bundles.set(id, out);
  return out;
}

export async function spawnTs(file: string, args: unknown, opts: SpawnOptions = {}): Promise<ChildProcess> {
  const js = opts.loader === 'tsx' ? null : await bundled(file);
  const entry = js ? [js] : ['--import', TSX, repoPath(file)];
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...opts.env,
      BENCH_ARGS: JSON.stringify(args ?? {}),
      BENCH_ENTRY: entryId(file),
      BENCH_REPO_ROOT: REPO_ROOT,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  trackChild(child);
  return child;
}

function lines(child: ChildProcess, onLine: (line: string) => void): { stderr: () => string } {
  let buf = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-4000);
  });
  return { stderr: () => err.trim() };
}

/** Runs `file` as a child with `args`; resolves with what it reported through childMain. */
export async function runChild<T = unknown>(file: string, args: unknown, opts: SpawnOptions = {}): Promise<T> {
  const child = await spawnTs(file, args, opts);
  return new Promise<T>((resolvePromise, reject) => {
    let result: { ok: true; value: T } | { ok: false; error: Error } | undefined;
    const { stderr } = lines(child, (line) => {
      if (line.startsWith('@@BENCH ')) result = { ok: true, value: JSON.parse(line.slice(8)) as T };
      else if (line.startsWith('@@SKIP ')) result = { ok: false, error: new SkipError(line.slice(7)) };
    });
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      result = { ok: false, error: new Error(`${file} timed out after ${opts.timeoutMs ?? 120_000} ms`) };
    }, opts.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (result?.ok) resolvePromise(result.value);
      else if (result) reject(result.error);
      else reject(new Error(`${file} exited ${code ?? signal} without a result: ${stderr().slice(-1500)}`));
    });
  });
}

/** True in the child process started for `file` (spawnTs sets BENCH_ENTRY; a bundle's import.meta.url cannot tell). */
const isMain = (file: string): boolean => process.env.BENCH_ENTRY === entryId(file);

function readArgs<A>(): A {
  return JSON.parse(process.env.BENCH_ARGS ?? '{}') as A;
}

function exitWhenParentGoes(): void {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}

/**
 * Makes a module runnable as a child: `childMain(FILE, async (args) => result)`, where FILE
 * is the module's repo-relative path (the one runChild is given). Does nothing when the
 * module is merely imported.
 */
export function childMain<A>(file: string, fn: (args: A) => Promise<unknown> | unknown): void {
  if (!isMain(file)) return;
  exitWhenParentGoes();
  Promise.resolve()
    .then(() => fn(readArgs<A>()))
    .then(
      (value) => process.stdout.write(`@@BENCH ${JSON.stringify(value)}\n`, () => process.exit(0)),
      (err: unknown) => {
        if (err instanceof SkipError) {
          process.stdout.write(`@@SKIP ${err.message.replace(/\n/g, ' ')}\n`, () => process.exit(0));
          return;
        }
        console.error(err instanceof Error ? err.stack : err);
        process.exit(1);
      },
    );
}

export interface ServerHandle {
  url: string;
  pid: number;
  info: Record<string, unknown>;
  stop(): Promise<void>;
}

/**
 * A long-lived child: `serverMain(FILE, async (args) => ({ port, close }))`.
 * Prints @@READY {port, ...info} once listening; SIGTERM (or the parent going away) closes it.
 */
export function serverMain<A>(
  file: string,
  fn: (args: A) => Promise<{ port: number; info?: Record<string, unknown>; close: () => Promise<void> | void }>,
): void {
  if (!isMain(file)) return;
  exitWhenParentGoes();
  fn(readArgs<A>()).then(
    ({ port, info, close }) => {
      const stop = async () => {
        await close();
        process.exit(0);
      };
      process.once('SIGTERM', stop);
      process.stdout.write(`@@READY ${JSON.stringify({ port, pid: process.pid, ...info })}\n`);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack : err);
      process.exit(1);
    },
  );
}

/** Starts `file` (a serverMain module) as a child and waits for it to listen on 127.0.0.1. */
export async function startServer(file: string, args: unknown, opts: SpawnOptions = {}): Promise<ServerHandle> {
  const child = await spawnTs(file, args, opts);
  return new Promise<ServerHandle>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`${file} did not report @@READY within ${opts.timeoutMs ?? 60_000} ms`));
    }, opts.timeoutMs ?? 60_000);
    const onEarlyExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited ${code} before listening: ${stderr().slice(-1500)}`));
    };
    child.once('exit', onEarlyExit);
    const { stderr } = lines(child, (line) => {
      if (!line.startsWith('@@READY ')) return;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      const info = JSON.parse(line.slice(8)) as Record<string, unknown> & { port: number; pid: number };
      resolvePromise({
        url: `http://127.0.0.1:${info.port}`,
        pid: info.pid,
        info,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            const kill = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** Resident set size of a process in MB, read from /proc (Linux), or NaN. */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
