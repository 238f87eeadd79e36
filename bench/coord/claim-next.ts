/**
 * coord contender, claim-next in process: coord's SqliteStore `claimNext` through
 * the Store port (lazy-expiry due probe, read-only peek, one BEGIN IMMEDIATE
 * transaction with the claim UPDATE and its task.claimed event), on a fresh copy of
 * the same seeded file the floor claims from. Runs under tsx (it imports src/).
 *
 *   { path, claims, warmup } → claims/s
 */
import type { ClaimNextCommand } from '../../src/core/ports.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { BOARD } from '../floors/sqlite-claim-loop.js';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/coord/claim-next.ts';

export interface ClaimNextArgs {
  path: string;
  claims: number;
  warmup: number;
}

export const runCoordClaims = (a: ClaimNextArgs, nodeArgs: string[] = []): Promise<number> =>
  runChild<number>(FILE, a, { timeoutMs: 300_000, nodeArgs });

childMain<ClaimNextArgs>(FILE, async (a) => {
  // synchronous=NORMAL like the floor's loop: one claim at a time cannot share a commit, so FULL would measure the disk.
  const store = new SqliteStore({ path: a.path, durability: 'normal' });
  try {
    const cmd = (agent: string, claimId: string): ClaimNextCommand => ({
      board: BOARD,
      kinds: [],
      labels: [],
      agent,
      lease_ms: 300_000,
      claim_id: claimId,
      session_id: null,
    });
    for (let i = 0; i < a.warmup; i++) {
      if (!(await store.claimNext(cmd('agent-w', `w${i}`)))) throw new Error('queue ran dry during warmup');
    }
    const t0 = performance.now();
    for (let i = 0; i < a.claims; i++) {
      if (!(await store.claimNext(cmd(`agent-${i & 63}`, `c${i}`)))) throw new Error(`queue ran dry after ${i} claims`);
    }
    return a.claims / ((performance.now() - t0) / 1000);
  } finally {
    await store.close();
  }
});
