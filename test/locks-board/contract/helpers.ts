/** Short calls for the lock contract: lock, fail to lock, list — through the operations, like every transport. */
import type { ClaimGrant } from '../../../src/core/model.js';
import type { Board } from '../../store/contract/board.js';
import { op } from '../../store/contract/board.js';

export interface Conflict {
  resource: string;
  held: string;
  holder: string;
  lock_id: string;
  lease_until: string;
}

export const lock = (b: Board, agent: string, resources: string[], lease_s?: number, session?: string) =>
  b.call(op.lockFiles, { agent, resources, ...(lease_s === undefined ? {} : { lease_s }) }, session);

/** The conflicts of a lock attempt that must fail with lock_conflict. */
export async function conflicts(b: Board, agent: string, resources: string[]): Promise<Conflict[]> {
  const err = await b.fail(op.lockFiles, { agent, resources });
  if (err.code !== 'lock_conflict') throw new Error(`expected lock_conflict, got ${err.code}: ${err.message}`);
  return err.details.conflicts as Conflict[];
}

/** Who holds what right now: resource → agent. */
export async function held(b: Board, board?: string): Promise<Record<string, string>> {
  const { locks } = await b.call(op.listLocks, board === undefined ? {} : { board });
  return Object.fromEntries(locks.flatMap((l) => l.resources.map((r) => [r, l.agent])));
}

export const claimWithFiles = (b: Board, task_id: string, agent: string, files: string[], session?: string) =>
  b.call(op.claimTask, { task_id, agent, files }, session) as Promise<ClaimGrant>;

export async function lockEvents(b: Board): Promise<{ type: string; lock_id: string | null; reason: unknown }[]> {
  const { events } = await b.call(op.listEvents, { limit: 1000 });
  return events
    .filter((e) => e.type.startsWith('lock.'))
    .map((e) => ({ type: e.type, lock_id: e.lock_id, reason: e.data.reason }));
}
