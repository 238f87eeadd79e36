/** File locks and the edit decision (SPEC rule 11, §14) of the PostgreSQL store (shared/store-ports.ts). */
import { isReadOnly } from '../../core/edits/edit-decision.js';
import { answerOf } from '../shared/edit-answer.js';
import type { LocksPort } from '../shared/store-ports.js';
import { decideEdit, peekEdit } from './decide-edit.js';
import { acquireLocks, liveLocks, releaseLock, renewLock } from './locks.js';
import { guarded } from './pg-errors.js';
import type { PostgresCore } from './store-core.js';

export const locksPort = (s: PostgresCore): LocksPort => ({
  acquireLocks: (cmd) => s.write((tx) => acquireLocks(tx, cmd)),
  async decideEdit(cmd) {
    const look = await guarded(async () => peekEdit(s.pool, await s.now(), cmd));
    if (isReadOnly(look)) return answerOf(look);
    return s.write((tx) => decideEdit(tx, cmd));
  },
  renewLock: (lockId, leaseMs) => s.write((tx) => renewLock(tx, lockId, leaseMs)),
  releaseLock: async (lockId) => ({ released: await s.write((tx) => releaseLock(tx, lockId)) }),
  listLocks: (board) => guarded(async () => liveLocks(s.pool, await s.now(), { board })),
});
