/**
 * coord's real daemon for the HTTP, RSS, MCP and PostgreSQL rows: `node bin/coord.js
 * serve --port 0 --state <dir> --json [--store …]`, from the compiled dist/ (so neither
 * its start-up nor its RSS include tsx). bin/coord.js runs dist/ whenever it exists, even
 * when it is older than src/, so `ensureDist()` rebuilds first when it is stale, and every
 * spawn checks again (other work may touch src/ during a run).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath, trackChild } from '../lib/child.js';
import { tempDir } from '../lib/template-db.js';
import { SkipError } from '../lib/types.js';

export const COORD_BIN = repoPath('bin/coord.js');
/** The hooks' entry, as `coord setup` writes it into a client's hook command. */
export const COORD_HOOK_BIN = repoPath('bin/coord-hook.cjs');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** dist/main.js exists and is not older than any file under src/ (the bench measures the code under review). */
export function distFresh(): boolean {
  const dist = repoPath('dist/main.js');
  return existsSync(dist) && statSync(dist).mtimeMs >= newestMtime(repoPath('src'));
}

/**
 * Builds dist/ when stale (tsc, then the SQL/dashboard assets). tsc still emits when a
 * file elsewhere in the tree fails to typecheck, so its exit code alone does not decide.
 */
export function ensureDist(): void {
  if (distFresh()) return;
  const tsc = spawnSync(process.execPath, [repoPath('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: repoPath('.'),
    encoding: 'utf8',
  });
  spawnSync(process.execPath, ['scripts/copy-assets.mjs'], { cwd: repoPath('.') });
  spawnSync(process.execPath, ['scripts/bundle-hooks.mjs'], { cwd: repoPath('.') });
  if (!distFresh())
    throw new SkipError(`dist/ is stale and the build failed: ${(tsc.stdout + tsc.stderr).slice(0, 300)}`);
}

export interface CoordDaemon {
  url: string;
  pid: number;
  stateDir: string;
  token: string;
  /** Authorization header for every /v1 request. */
  headers: Record<string, string>;
  /** SIGTERM, wait for exit; removes the state dir when the helper created it. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  /** State directory; a fresh temp dir when omitted (removed by stop()). */
  stateDir?: string;
  /** A SQLite file to serve: copied to <state>/coord.db before the daemon starts. */
  dbFile?: string;
  /** --store value (a postgres:// URL); default: the embedded SQLite store. */
  store?: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}

export async function startCoordDaemon(o: DaemonOptions = {}): Promise<CoordDaemon> {
  ensureDist();
  const own = o.stateDir === undefined;
  const stateDir = o.stateDir ?? tempDir('coord-bench-state-');
  mkdirSync(stateDir, { recursive: true });
  if (o.dbFile) copyFileSync(o.dbFile, join(stateDir, 'coord.db'));
  const args = [COORD_BIN, 'serve', '--port', '0', '--state', stateDir, '--json'];
  if (o.store) args.push('--store', o.store);
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), ...args], {
    cwd: repoPath('.'),
    env: { ...process.env, COORD_LOG_LEVEL: 'warn', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-3000);
  });
  const ready = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`coord serve did not start in 60 s: ${err}`)), 60_000);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const line = buf.split('\n').find((l) => l.startsWith('{"url"'));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as { url: string; pid: number });
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`coord serve exited before listening: ${err.slice(-1500)}`));
    });
  });
  const token = readFileSync(join(stateDir, 'token'), 'utf8').trim();
  return {
    url: ready.url,
    pid: ready.pid,
    stateDir,
    token,
    headers: { authorization: `Bearer ${token}` },
    stop: () =>
      stopChild(child, exited).then(() => (own ? rmSync(stateDir, { recursive: true, force: true }) : undefined)),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
  child.kill('SIGTERM');
  await exited;
  clearTimeout(kill);
}

/** Runs `fn` against a daemon serving a fresh copy of `dbFile` (or an empty board), then stops it. */
export async function withCoordDaemon<T>(o: DaemonOptions, fn: (d: CoordDaemon) => Promise<T>): Promise<T> {
  const d = await startCoordDaemon(o);
  try {
    return await fn(d);
  } finally {
    await d.stop();
  }
}
