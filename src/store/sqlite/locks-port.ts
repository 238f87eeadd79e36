/** File locks and the edit decision (SPEC rule 11, §14) of the SQLite store (shared/store-ports.ts). */
import { isReadOnly } from '../../core/edits/edit-decision.js';
import { answerOf } from '../shared/edit-answer.js';
import type { LocksPort } from '../shared/store-ports.js';
import { decideEdit, peekEdit } from './decide-edit.js';
import { acquireLocks, liveLocks, releaseLock, renewLock } from './locks.js';
import type { SqliteCore } from './store-core.js';

export const locksPort = (s: SqliteCore): LocksPort => ({
  acquireLocks: (cmd) => s.write((tx) => acquireLocks(tx, cmd)),
  async decideEdit(cmd) {
    const look = s.read(() => peekEdit(s.db, s.clock.now(), cmd));
    if (isReadOnly(look)) return answerOf(look);
    return s.write((tx) => decideEdit(tx, cmd));
  },
  renewLock: (lockId, leaseMs) => s.write((tx) => renewLock(tx, lockId, leaseMs)),
  releaseLock: async (lockId) => ({ released: await s.write((tx) => releaseLock(tx, lockId)) }),
  listLocks: async (board) => s.read(() => liveLocks(s.db, s.clock.now(), { board })),
});
