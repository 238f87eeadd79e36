/**
 * `coord mcp` finds the daemon of its state directory and, if none holds the
 * daemon lock, starts one in the background (SPEC §5). When many agents start
 * at once, one of them (holding `daemon-spawn.lock`) launches the daemon and
 * the rest wait for it; even if two launched, the daemon lock (rule 12)
 * lets exactly one serve and the other exits at once.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { liveDaemonOf } from '../state-dir/daemon-live.js';
import { findRunningDaemon, liveDaemonNow } from '../state-dir/daemon-lock.js';
import { type LockedFile, tryLockFile, unlockFile } from '../state-dir/flock.js';
import { ensurePrivateDir } from '../state-dir/paths.js';
import type { DaemonEndpoint } from './daemon-link.js';

export interface LaunchOptions {
  stateDir: string;
  /** The command that runs this CLI (`node [--import tsx] <main>`); `serve …` is appended. */
  command: readonly string[];
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  log: (message: string) => void;
}

/** Exit code of `coord serve` when another daemon already holds the lock (EXIT.conflict). */
const LOST_LOCK = 2;

/** The daemon serving `stateDir` right now, or null. */
export function findDaemon(stateDir: string): DaemonEndpoint | null {
  return liveDaemonNow(stateDir);
}

export async function ensureDaemon(opts: LaunchOptions): Promise<DaemonEndpoint> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  ensurePrivateDir(opts.stateDir);
  let launcher: LockedFile | null = null;
  let child: Launched | undefined;
  try {
    for (;;) {
      const running = findRunningDaemon(opts.stateDir);
      const live = liveDaemonOf(running?.url, opts.stateDir);
      if (live) return live;
      launcher ??= tryLockFile(join(opts.stateDir, 'daemon-spawn.lock'));
      // Only the launcher starts a daemon, and only when nobody holds the daemon lock after it got there.
      if (launcher && !running && !child?.running) {
        if (child?.failed && child.port0)
          throw new Error(`the coord daemon would not start — see ${logPath(opts.stateDir)}`);
        // The default port may be taken by another state directory's daemon: then any free port will do.
        child = start(opts, child?.failed === true, await import('node:child_process'));
      }
      if (Date.now() > deadline) throw new Error(`no coord daemon came up for ${opts.stateDir} in time`);
      // Waiting on another process's file: there is no event to wait for, so look again shortly.
      await sleep(25);
    }
  } finally {
    if (launcher) unlockFile(launcher.fd);
  }
}

const logPath = (stateDir: string) => join(stateDir, 'daemon.log');

interface Launched {
  running: boolean;
  /** It exited for another reason than losing the daemon lock to a daemon that is starting. */
  failed: boolean;
  port0: boolean;
}

/** `child_process` is passed in, loaded only when a daemon must be started: `coord mcp` next to one never needs it. */
function start(opts: LaunchOptions, port0: boolean, { spawn }: typeof import('node:child_process')): Launched {
  const [cmd, ...base] = opts.command;
  const args = [...base, 'serve', '--state', opts.stateDir, ...(port0 ? ['--port', '0'] : [])];
  opts.log(`starting a coord daemon: ${args.slice(base.length).join(' ')} (log: ${logPath(opts.stateDir)})`);
  const log = openSync(logPath(opts.stateDir), 'a', 0o600);
  let proc: ChildProcess;
  try {
    // Detached with its own log: the daemon outlives this agent, and stdout stays protocol-only.
    proc = spawn(cmd ?? process.execPath, args, { detached: true, stdio: ['ignore', log, log], env: opts.env });
  } finally {
    closeSync(log);
  }
  const state: Launched = { running: true, failed: false, port0 };
  const ended = (code: number | null) => {
    state.running = false;
    state.failed = code !== LOST_LOCK;
  };
  proc.once('exit', ended);
  proc.once('error', () => ended(null));
  proc.unref();
  return state;
}
