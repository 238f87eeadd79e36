/**
 * Watch the sessions directory and report each dead session once. A
 * process's death changes nothing on disk (the kernel just drops its flock),
 * so fs.watch cannot see it: the interval is the real detector; fs.watch
 * only triggers an early scan when session files come and go. Neither the
 * timer nor the watcher keeps the event loop alive.
 */
import { type FSWatcher, watch } from 'node:fs';
import { ensurePrivateDir, sessionsDir } from './paths.js';
import { findDeadSessions } from './session-lock.js';

export interface WatchSessionsOptions {
  /** Scan period. Default 500 ms. */
  readonly intervalMs?: number;
  /** Called when a scan throws; the watch keeps going. Default: ignore. */
  readonly onError?: (error: unknown) => void;
}

/** Start watching; returns a function that stops the watch. */
export function watchSessions(
  stateDir: string,
  onDead: (sessionId: string) => void,
  options: WatchSessionsOptions = {},
): () => void {
  const intervalMs = options.intervalMs ?? 500;
  const onError = options.onError ?? (() => {});
  const dir = sessionsDir(stateDir);
  ensurePrivateDir(dir);
  let stopped = false;
  let pending: NodeJS.Timeout | undefined;

  const scan = (): void => {
    if (stopped) return;
    let dead: string[];
    try {
      dead = findDeadSessions(stateDir);
    } catch (e) {
      onError(e);
      return;
    }
    for (const id of dead) {
      if (stopped) return;
      try {
        onDead(id);
      } catch (e) {
        onError(e);
      }
    }
  };

  const timer = setInterval(scan, intervalMs);
  timer.unref();

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, () => {
      if (pending !== undefined || stopped) return;
      pending = setTimeout(() => {
        pending = undefined;
        scan();
      }, 20);
      pending.unref();
    });
    watcher.on('error', onError);
  } catch (e) {
    onError(e); // the interval still works without fs.watch
  }

  queueMicrotask(scan);
  return () => {
    stopped = true;
    clearInterval(timer);
    if (pending !== undefined) clearTimeout(pending);
    watcher?.close();
  };
}
