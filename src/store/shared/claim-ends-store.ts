/**
 * A claim's ends of both stores, in one transaction each: release, submit and cancel with their note (SPEC §12),
 * a submit's holds (§14) and its entry to the integration queue (§15), as claim-ends.ts decides them. Programs
 * (program.ts) over the store's own statements (`ClaimCode`) and the
 * features' statements (a session's end: session-end.ts); a claim that ends frees its locks (locks-store.ts
 * freeClaimLocks). `claimWritesPort` runs each as one write.
 */
import type { Task } from '../../core/model.js';
import type { Outcome, SubmitOutcome } from '../../core/ports.js';
import { CANCEL_SQL, cancel } from './cancel.js';
import { isOpenState, submitSteps, submitted } from './claim-ends.js';
import type { DepsSql } from './deps.js';
import { heartbeat, type ReleaseSql, release, submit } from './fence.js';
import { holdAtSubmit } from './holds-store.js';
import { queueIntegration } from './integration.js';
import type { IntegrationSql } from './integration-sql.js';
import { claimWithFiles } from './locks-claim.js';
import type { LocksSql } from './locks-sql.js';
import type { MessagesSql } from './messages-sql.js';
import { withNote } from './notes.js';
import { call, get, type Prog, type Q, type Runner } from './program.js';
import { endSession, type SessionSql } from './session-end.js';
import type { ClaimsPort } from './store-ports.js';

export type Command<K extends keyof ClaimsPort> = Parameters<ClaimsPort[K]>[0];

export const CLAIM_ENDS_COMMON = {
  holder: 'SELECT claimed_by FROM tasks WHERE id = @id AND claim_id = @claim_id',
  // Locked, so "was it open" is still true when the cancel runs (a second cancel writes no second note).
  state: 'SELECT state FROM tasks WHERE id = @id FOR NO KEY UPDATE',
};

/** The store's own statements of a release and of a session's end. */
export interface ClaimCode {
  /** The release's statements (fence.ts). */
  release: ReleaseSql;
  /** The statements of a session's end (rule 13, session-end.ts). */
  session: SessionSql;
}

/** The statements, and the store's own code. */
export type ClaimEndsSql = typeof CLAIM_ENDS_COMMON &
  ClaimCode & { messages: MessagesSql; integration: IntegrationSql; locks: LocksSql; deps: DepsSql };

/** A store's table: its integration queue's (which holds the messages'), its locks', and its own code. */
export const claimEndsSql = (integration: IntegrationSql, locks: LocksSql, code: ClaimCode): ClaimEndsSql => ({
  ...CLAIM_ENDS_COMMON,
  messages: integration.messages,
  integration,
  locks,
  deps: integration.tasks,
  ...code,
});

/** The claims' entries that are one write each (PostgreSQL's claim and submit try their one-statement path first). */
export type ClaimWrites = Pick<ClaimsPort, 'claimTask' | 'heartbeat' | 'release' | 'submit' | 'cancel' | 'endSession'>;

export const claimWritesPort = (r: Runner<ClaimEndsSql>): ClaimWrites => ({
  claimTask: (cmd) => r.write((q) => claimWithFiles(q, cmd)),
  heartbeat: (cmd) => r.write((q) => heartbeat(q, cmd)),
  release: (cmd) => r.write((q) => releaseWithNote(q, cmd)),
  submit: (cmd) => r.write((q) => submitWithSteps(q, cmd)),
  cancel: (cmd) => r.write((q) => cancelWithNote(q, cmd)),
  endSession: (sessionId) => r.write((q) => endSession(q, sessionId)),
});

/** How many work-tree locks the store's transaction ended so far (its `free` counts them; they wait for git, SPEC §14). */
const endedLocks = (tx: { endedLocks?: number | undefined }): number | undefined => tx.endedLocks;

/** The same transaction with another feature's statements. */
const as = <S>(q: Q<unknown>, sql: S): Q<S> => ({ sql, now: q.now });

export function* releaseWithNote(q: Q<ClaimEndsSql>, cmd: Command<'release'>): Prog<Outcome<{ task: Task }>> {
  // The agent whose claim this is (a claim_id names one claim of one agent), for the note.
  const holder = cmd.note
    ? ((yield* get<{ claimed_by: string | null }>(q.sql.holder, { id: cmd.task_id, claim_id: cmd.claim_id }))
        ?.claimed_by ?? null)
    : null;
  const out = yield* release(q, cmd);
  return yield* withNote(as(q, q.sql.messages), out, cmd.note, holder, 'release', true);
}

/** The general submit: a note, a change record or holds to take (SPEC §14) come this way. */
export function* submitWithSteps(q: Q<ClaimEndsSql>, cmd: Command<'submit'>): Prog<SubmitOutcome> {
  const out = yield* submit(as(q, { locks: q.sql.locks, deps: q.sql.deps }), cmd);
  if (!out.ok && out.reason === 'work_tree') return out;
  const steps = submitSteps(out, cmd);
  if (steps.hold) yield* holdAtSubmit(as(q, q.sql.locks), steps.hold);
  if (steps.queue) yield* queueIntegration(as(q, q.sql.integration), steps.queue);
  yield* withNote(as(q, q.sql.messages), out, cmd.note, steps.author, 'submit', steps.changed);
  return submitted(out, yield* call(endedLocks));
}

export function* cancelWithNote(q: Q<ClaimEndsSql>, cmd: Command<'cancel'>): Prog<Outcome<{ task: Task }>> {
  const open = cmd.note ? isOpenState((yield* get<{ state: string }>(q.sql.state, { id: cmd.task_id }))?.state) : false;
  const out = yield* cancel(as(q, CANCEL_SQL), cmd, q.sql.locks);
  return yield* withNote(as(q, q.sql.messages), out, cmd.note, cmd.agent, 'cancel', open);
}
