/** Real daemons in real processes, for the tests that must cross a socket. */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
// @ts-expect-error a plain .mjs build script, no types
import { sourceHash } from '../../scripts/source-hash.mjs';
import { tempDir } from './ctx.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
/**
 * The CLI as the tests run it: always the code under review, never a stale build. When dist/ was built from
 * exactly the sources in front of us (its stamp, written by `npm run build`, equals their hash) the tests run
 * dist/main.js, as users do, and spare every child process tsx's compile; otherwise the sources through tsx.
 * COORD_TEST_FROM_SOURCE=1 forces the sources.
 */
export const FROM_DIST = process.env.COORD_TEST_FROM_SOURCE !== '1' && distIsCurrent();
export const COORD = FROM_DIST
  ? [process.execPath, join(ROOT, 'dist/main.js')]
  : [process.execPath, '--import', import.meta.resolve('tsx'), join(ROOT, 'src/main.ts')];

function distIsCurrent(): boolean {
  try {
    return readFileSync(join(ROOT, 'dist/.source-hash'), 'utf8').trim() === sourceHash(ROOT);
  } catch {
    return false;
  }
}

/** The environment for child processes: node --test's own marker must not leak into them. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

export interface SpawnedDaemon {
  url: string;
  token: string;
  stateDir: string;
  pid: number;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export async function spawnDaemon(
  opts: { stateDir?: string; args?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<SpawnedDaemon> {
  const stateDir = opts.stateDir ?? tempDir('coord-daemon-');
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base, 'serve', '--port', '0', '--state', stateDir, '--json', ...(opts.args ?? [])], {
    cwd: ROOT,
    env: childEnv({ COORD_LOG_LEVEL: 'warn', ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const first = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    exited.then((code) => reject(new Error(`daemon exited ${code} before listening: ${err}`)));
  });
  const { url, pid } = JSON.parse(first) as { url: string; pid: number };
  const token = readFileSync(join(stateDir, 'token'), 'utf8').trim();
  return {
    url,
    token,
    stateDir,
    pid,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill9() {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
    fetch(path, init = {}) {
      const { json, ...rest } = init;
      return fetch(url + path, {
        ...rest,
        headers: {
          authorization: `Bearer ${token}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...(rest.headers as Record<string, string> | undefined),
        },
        body: json === undefined ? (rest.body ?? null) : JSON.stringify(json),
      });
    },
  };
}

/**
 * Runs a process to its end and collects what it said. Resolves on 'close', not 'exit': 'exit' can come
 * before the last bytes of stdout/stderr were read, and a test would then miss the sentence it checks.
 */
export function runProcess(
  cmd: string,
  args: string[],
  opts: SpawnOptions,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Run the coord CLI against a state directory; resolves with exit code and output. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [cmd, ...base] = COORD as [string, ...string[]];
  return runProcess(cmd, [...base, ...args], { cwd: ROOT, env: childEnv(env) });
}
