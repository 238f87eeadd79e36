/** File locks and the edit decision (SPEC rule 11, §14) of both stores (store-ports.ts), over a store's runner. */
import { isReadOnly } from '../../core/edits/edit-decision.js';
import { answerOf } from './edit-answer.js';
import { decideEdit, peekEdit } from './edits-store.js';
import type { LocksSql } from './locks-sql.js';
import { acquireLocks, liveLocks, releaseLock, renewLock } from './locks-store.js';
import type { Runner } from './program.js';
import type { LocksPort } from './store-ports.js';

export const locksPort = (r: Runner<LocksSql>): LocksPort => ({
  acquireLocks: (cmd) => r.write((q) => acquireLocks(q, cmd)),
  async decideEdit(cmd) {
    const now = await r.now();
    const look = await r.read((sql) => peekEdit(sql, now, cmd));
    if (isReadOnly(look)) return answerOf(look);
    return r.write((q) => decideEdit(q, cmd));
  },
  renewLock: (lockId, leaseMs) => r.write((q) => renewLock(q, lockId, leaseMs)),
  releaseLock: async (lockId) => ({ released: await r.write((q) => releaseLock(q, lockId)) }),
  listLocks: async (board) => {
    const now = await r.now();
    return r.read((sql) => liveLocks(sql, now, { board }));
  },
});
