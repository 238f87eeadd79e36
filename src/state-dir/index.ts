/** OS-backed locks: the daemon's one-per-state-dir lock and session liveness. */

export {
  type DaemonInfo,
  processStart,
  readDaemonInfo,
  writeDaemonInfo,
} from './daemon-info.js';
export {
  acquireDaemonLock,
  cleanupStaleDaemonLock,
  type DaemonHolder,
  type DaemonLock,
  type DaemonLockResult,
  findRunningDaemon,
} from './daemon-lock.js';
export { type LockedFile, tryLockFile, unlockFile } from './flock.js';
export {
  findDeadSessions,
  holdSessionLock,
  isSessionAlive,
  isSessionId,
  type SessionLock,
} from './session-lock.js';
export { type WatchSessionsOptions, watchSessions } from './session-watch.js';
export type { StaleCleanup } from './stale-lock.js';
