/**
 * Locks die with their session (SPEC rule 13). Each `coord mcp` process
 * holds a flock on `<state>/sessions/<uuid>.lock` for its life. The daemon
 * frees a session when a try-lock on its file succeeds, then removes the
 * file. Only files named `<uuid>.lock` are looked at; age is never a reason.
 * Creating, probing and reaping all run under `<state>/sessions.coord`, so a
 * file is never seen between its creation and its owner's flock.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CoordError } from '../core/errors.js';
import { withCoordinationLock } from './coordination-lock.js';
import { tryLockFile, unlockFile } from './flock.js';
import { ensurePrivateDir, sessionsCoordPath, sessionsDir } from './paths.js';
import { removeIfUnheld } from './stale-lock.js';

export interface SessionLock {
  readonly sessionId: string;
  /**
   * Drop the lock. The file stays: the daemon reaps it like a crashed
   * session's, so a clean exit frees the session's locks the same way.
   * Idempotent.
   */
  release(): void;
}

const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.lock$/;
const SUFFIX = '.lock';

export const isSessionId = (id: string): boolean => SESSION_FILE.test(`${id}${SUFFIX}`);

const sessionFile = (stateDir: string, id: string): string => join(sessionsDir(stateDir), `${id}${SUFFIX}`);

/**
 * Create this process's session file and hold its lock until release or exit. A `sessionId` derived
 * from the client session (client/agent-identity.ts) lets the client's hooks tie their locks to it.
 */
export function holdSessionLock(stateDir: string, sessionId: string = randomUUID()): SessionLock {
  ensurePrivateDir(stateDir);
  ensurePrivateDir(sessionsDir(stateDir));
  if (!isSessionId(sessionId)) throw new CoordError('internal', `not a session id: ${sessionId}`);
  const path = sessionFile(stateDir, sessionId);
  const lock = withCoordinationLock(sessionsCoordPath(stateDir), () => tryLockFile(path));
  if (lock === null) {
    throw new CoordError('internal', `session lock ${path} is already held`);
  }
  let open = true;
  return {
    sessionId,
    release() {
      if (!open) return;
      open = false;
      unlockFile(lock.fd);
    },
  };
}

/**
 * Reap dead sessions: every valid `<uuid>.lock` regular file whose try-lock
 * succeeds is removed (released before deleted) and its id returned. Files
 * with other names, directories and symlinks are never touched.
 */
export function findDeadSessions(stateDir: string): string[] {
  const dir = sessionsDir(stateDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const candidates = names.filter((n) => SESSION_FILE.test(n)).sort();
  if (candidates.length === 0) return [];
  return withCoordinationLock(sessionsCoordPath(stateDir), () => {
    const dead: string[] = [];
    for (const name of candidates) {
      const path = join(dir, name);
      if (!isRegularFile(path)) continue;
      if (removeIfUnheld(path) === 'removed') {
        dead.push(name.slice(0, -SUFFIX.length));
      }
    }
    return dead;
  });
}

/** True while some process holds the session's lock. Never removes anything. */
export function isSessionAlive(stateDir: string, sessionId: string): boolean {
  if (!isSessionId(sessionId)) return false;
  const path = sessionFile(stateDir, sessionId);
  if (!isRegularFile(path)) return false;
  return withCoordinationLock(sessionsCoordPath(stateDir), () => {
    const probe = tryLockFile(path, { create: false });
    if (probe === null) return isRegularFile(path);
    unlockFile(probe.fd);
    return false;
  });
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
