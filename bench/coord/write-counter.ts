/**
 * Counts the write transactions another process commits to a SQLite file in WAL mode,
 * from the outside, without touching that process:
 *
 *   - the WAL's commit frames: every committed write transaction appends its pages to
 *     <db>-wal and marks the last frame as a commit frame (non-zero "database size"
 *     field in the frame header). Frames count only while their salts match the WAL
 *     header's (a checkpoint restarts the WAL with new salts);
 *   - `PRAGMA data_version` on a second, read-only connection: it changes whenever
 *     another connection commits. It is the cross-check: when the WAL shows nothing
 *     new but data_version moved, at least one commit is counted.
 *
 * What it cannot see: a BEGIN IMMEDIATE … COMMIT that changed nothing writes no frame
 * and does not move data_version. coord opens a write transaction on a read only when
 * its read-only due probe found a lapsed lease or ttl, and then it moves rows, so every
 * write a read could cause is visible here.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

interface WalState {
  salt: string;
  commits: number;
}

function walState(dbPath: string): WalState {
  const path = `${dbPath}-wal`;
  if (!existsSync(path)) return { salt: '', commits: 0 };
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    if (size < WAL_HEADER) return { salt: '', commits: 0 };
    const head = Buffer.alloc(WAL_HEADER);
    readSync(fd, head, 0, WAL_HEADER, 0);
    const pageSize = head.readUInt32BE(8);
    const salt = head.subarray(16, 24).toString('hex');
    const frame = Buffer.alloc(FRAME_HEADER);
    let commits = 0;
    for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= size; at += FRAME_HEADER + pageSize) {
      readSync(fd, frame, 0, FRAME_HEADER, at);
      if (frame.subarray(8, 16).toString('hex') !== salt) break; // left over from before a WAL restart
      if (frame.readUInt32BE(4) !== 0) commits++;
    }
    return { salt, commits };
  } finally {
    closeSync(fd);
  }
}

export interface WriteCounter {
  /** Write transactions committed by others since the counter was opened. */
  count(): number;
  close(): void;
}

export function writeCounter(dbPath: string): WriteCounter {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  const version = db.prepare('PRAGMA data_version').pluck();
  let lastVersion = version.get() as number;
  let last = walState(dbPath);
  let total = 0;
  return {
    count() {
      const v = version.get() as number;
      const w = walState(dbPath);
      // Same WAL generation: the new commit frames. A restarted WAL (new salts): the commits
      // in it (a commit restarts it, so there is at least one); commits made in the old WAL
      // after the last look are lost with it, which is why count() should be asked often
      // when writes are expected (here they are not: 0 is the target).
      let n = w.salt === last.salt ? w.commits - last.commits : w.commits;
      if (n <= 0 && v !== lastVersion) n = 1;
      total += Math.max(0, n);
      last = w;
      lastVersion = v;
      return total;
    },
    close: () => db.close(),
  };
}
