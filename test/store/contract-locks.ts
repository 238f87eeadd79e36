/**
 * The lock contract every store must pass (SPEC rules 10, 11, 13), driven
 * through the operations like the board contract. The SQLite and PostgreSQL
 * test files call `runLockContract` with their own `makeStore`.
 */
import { describe } from 'node:test';
import { claimFilesContract } from '../locks-board/contract/claim-files.js';
import { decideEditContract } from '../locks-board/contract/decide-edit.js';
import { endedLocksContract } from '../locks-board/contract/ended-locks.js';
import { sessionContract } from '../locks-board/contract/sessions.js';
import { tryLockContract } from '../locks-board/contract/try-locks.js';
import type { MakeStore } from '../support/ctx.js';

export function runLockContract(name: string, makeStore: MakeStore): void {
  describe(`lock contract: ${name}`, () => {
    tryLockContract(makeStore);
    claimFilesContract(makeStore);
    sessionContract(makeStore);
    decideEditContract(makeStore);
    endedLocksContract(makeStore);
  });
}
