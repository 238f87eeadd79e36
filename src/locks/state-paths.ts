/** File names inside a coord state directory that the locks module owns. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const daemonLockPath = (stateDir: string): string => join(stateDir, 'daemon.lock');
export const daemonCoordPath = (stateDir: string): string => join(stateDir, 'daemon.lock.coord');
export const daemonInfoPath = (stateDir: string): string => join(stateDir, 'daemon.json');
export const sessionsDir = (stateDir: string): string => join(stateDir, 'sessions');
export const sessionsCoordPath = (stateDir: string): string => join(stateDir, 'sessions.coord');

/** Create `dir` (and parents) with mode 0700 if missing; existing dirs are left alone. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}
