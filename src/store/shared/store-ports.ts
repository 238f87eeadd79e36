/**
 * The Store (core/ports.ts) cut by feature, as each store composes it: one port object per feature, built in
 * its own file over the store's core and typed here, so a method missing there fails to compile there.
 */
import type { EventListener, Store } from '../../core/ports.js';

/** Tasks, their dependencies and plans, artifacts, and the reads of the board. */
export type TasksPort = Pick<
  Store,
  | 'createTask'
  | 'getTask'
  | 'listTasks'
  | 'setDeps'
  | 'createPlan'
  | 'taskStates'
  | 'putArtifact'
  | 'getArtifact'
  | 'listArtifacts'
  | 'inbox'
  | 'events'
  | 'activity'
>;

/** Claims and how they end: claim, heartbeat, release, submit (into the integration queue), cancel, sessions. */
export type ClaimsPort = Pick<
  Store,
  'claimTask' | 'claimNext' | 'heartbeat' | 'release' | 'submit' | 'cancel' | 'endSession' | 'sweep'
>;

/** File locks and the edit decision (SPEC rule 11, §14). */
export type LocksPort = Pick<Store, 'acquireLocks' | 'decideEdit' | 'renewLock' | 'releaseLock' | 'listLocks'>;

/** A store's subscribe: the listener hears each committed batch of events until it unsubscribes. */
export function subscribeTo(listeners: Set<EventListener>, listener: EventListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
