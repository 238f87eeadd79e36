/**
 * The real agent CLIs under test: where `npm run agents:install` put them, a clean environment for
 * each (its own HOME, no real credentials, nothing of the tester's config), a scratch git repository,
 * and runs that always end — a client is started in its own process group and the whole group is
 * killed when it is done or out of time, so no MCP server it launched outlives the test.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { COORD, ROOT } from '../support/daemon.js';

/** tsx by absolute URL: `--import tsx` would resolve from the scratch repository the CLI runs in. */
const TSX = import.meta.resolve('tsx');
/** tsx's URL, for a test that starts the coord CLI itself with a longer deadline than `coord`'s. */
export const ROOT_TSX = TSX;

export type ClientName = 'claude' | 'codex' | 'gemini';

interface Pin {
  package: string;
  version: string;
  bin: string;
}
export const PINS = JSON.parse(readFileSync(join(ROOT, 'scripts/agents/versions.json'), 'utf8')) as Record<
  ClientName,
  Pin
>;
const CACHE = process.env.COORD_AGENTS_CACHE || join(homedir(), '.cache', 'coord-agents');

/**
 * Scratch directories (HOMEs, repositories, debug logs) live under one folder per test process, removed
 * when it exits — a run leaves ~40 MB of client state otherwise. COORD_AGENTS_KEEP=1 keeps it to look at.
 */
const RUN_ROOT = mkdtempSync(join(tmpdir(), 'coord-agents-run-'));
process.on('exit', () => {
  if (process.env.COORD_AGENTS_KEEP === '1') return;
  // A client killed a moment ago (tmux kill-server) may still be writing its state: retry, and never let
  // tidying up turn a passing test file into a failing one.
  try {
    rmSync(RUN_ROOT, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (err) {
    process.stderr.write(`could not remove ${RUN_ROOT}: ${(err as Error).message}\n`);
  }
});
export const tempDir = (prefix = 'tmp-'): string => mkdtempSync(join(RUN_ROOT, prefix));

/** The installed executable of a pinned client (see scripts/agents/install.mjs). */
export function clientBin(name: ClientName): string {
  const p = PINS[name];
  return join(CACHE, `${p.package.replace('/', '+')}@${p.version}`, 'node_modules', '.bin', p.bin);
}

/** A fresh HOME for one client: nothing of the tester's own config or credentials reaches it. */
export function isolatedHome(prefix = 'coord-agent-home-'): string {
  const home = tempDir(prefix);
  mkdirSync(join(home, '.config'), { recursive: true });
  return home;
}

/**
 * The environment a client runs with: built from nothing but PATH (the clients' bin directories and this
 * node first, so `coord setup` finds `claude` and `codex` as a user's shell would, and hooks find `node`), HOME and locale — no
 * ANTHROPIC_*, OPENAI_*, GEMINI_*, GOOGLE_*, CODEX_*, CLAUDE_* or COORD_* from the tester's shell.
 */
export function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clients = (['claude', 'codex', 'gemini'] as const).map((c) => dirname(clientBin(c)));
  const dirs = [...clients, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'];
  return {
    PATH: [...new Set(dirs)].join(':'),
    HOME: home,
    USER: process.env.USER ?? 'root',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    // COORD_PLUGIN_SPAWN=1: coord's plugins start a `coord hook` process per call, as before they ran the hooks in process (to compare).
    ...(process.env.COORD_PLUGIN_SPAWN ? { COORD_PLUGIN_SPAWN: process.env.COORD_PLUGIN_SPAWN } : {}),
    ...extra,
  };
}

/** A git repository with one commit, for a client to work in. */
export function makeRepo(prefix = 'coord-agent-repo-'): string {
  const dir = tempDir(prefix);
  const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'test');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# scratch\n');
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'src', 'b.ts'), 'export const b = 1;\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return dir;
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

export interface Started {
  child: ChildProcess;
  done: Promise<Run>;
  /** Kill the whole process group (the client and everything it launched). */
  kill(): void;
}

/** Start a process in its own group; `done` resolves once its pipes closed, killing the group on timeout. */
export function start(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string },
): Started {
  const t0 = Date.now();
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  let timedOut = false;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, opts.timeoutMs ?? 120_000);
  const done = new Promise<Run>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the client left behind in its group (an MCP server that ignores stdin closing) goes too.
      killGroup();
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - t0 });
    });
  });
  return { child, done, kill: killGroup };
}

export const run = (
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string },
): Promise<Run> => start(cmd, args, opts).done;

/** The coord CLI under review (test/support/daemon.ts: dist/ when built from these sources), in `cwd`. */
export function coord(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  const [cmd, ...base] = COORD as [string, ...string[]];
  return run(cmd, [...base, ...args], { ...opts, timeoutMs: 60_000 });
}

/** Show what a run said when an assertion about it fails. */
export const describeRun = (r: Run): string =>
  `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}${r.timedOut ? ' TIMED OUT' : ''} after ${r.ms} ms\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
