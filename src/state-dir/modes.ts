/**
 * The state directory holds the token and the whole board: nobody but its owner may read it
 * (SPEC §4). New entries are private already (0700 directories, 0600 files, `serve`'s umask 077);
 * this tightens what an older version, a restored backup or a hand-made directory left looser.
 */
import { join } from 'node:path';
import { type Loosened, sessionsDir, tightenPrivate } from './paths.js';

/**
 * The files coord writes that carry secrets or the board. Only these: a file of the user's own in
 * the directory is not ours to change, and once the directory is 0700 nobody else reaches it anyway.
 */
const PRIVATE_FILES = ['token', 'daemon.json', 'daemon.log', 'coord.db', 'coord.db-wal', 'coord.db-shm'];

/** Tighten the state directory, `sessions/` and coord's own files in it; returns what was looser. */
export function tightenStateDir(stateDir: string): Loosened[] {
  const changed = [tightenPrivate(stateDir, 'dir'), tightenPrivate(sessionsDir(stateDir), 'dir')];
  for (const name of PRIVATE_FILES) changed.push(tightenPrivate(join(stateDir, name), 'file'));
  return changed.filter((c): c is Loosened => c !== null);
}
