/**
 * A claim's ends of both stores, in one transaction each: release, submit and cancel with their note (SPEC §12),
 * a submit's holds (§14) and its entry to the integration queue (§15), as claim-ends.ts decides them. Programs
 * (program.ts) over the store's fenced release and submit (`ClaimEndsSql`) and the features' statements.
 */
import type { Task } from '../../core/model.js';
import type { Outcome, SubmitOutcome, TreeToVerify } from '../../core/ports.js';
import { CANCEL_SQL, cancel } from './cancel.js';
import { isOpenState, submitSteps, submitted } from './claim-ends.js';
import { holdAtSubmit } from './holds-store.js';
import { queueIntegration } from './integration.js';
import type { IntegrationSql } from './integration-sql.js';
import type { LocksSql } from './locks-sql.js';
import type { MessagesSql } from './messages-sql.js';
import { withNote } from './notes.js';
import { call, get, type InTx, type Prog, type Q } from './program.js';
import type { TaskRow } from './rows.js';
import type { ClaimsPort } from './store-ports.js';

export type Command<K extends keyof ClaimsPort> = Parameters<ClaimsPort[K]>[0];
/** The store's hook for a claim that ends (its locks go with it), run in the transaction. */
export type ClaimEnded = InTx<[row: TaskRow], void>;
type Submitted = Outcome<{ task: Task; replayed: boolean }>;

export const CLAIM_ENDS_COMMON = {
  holder: 'SELECT claimed_by FROM tasks WHERE id = @id AND claim_id = @claim_id',
  // Locked, so "was it open" is still true when the cancel runs (a second cancel writes no second note).
  state: 'SELECT state FROM tasks WHERE id = @id FOR NO KEY UPDATE',
};

/** The statements, and the store's own code; `H`: the store's hook for a claim that ends. */
export type ClaimEndsSql<H extends ClaimEnded = ClaimEnded> = typeof CLAIM_ENDS_COMMON & {
  messages: MessagesSql;
  integration: IntegrationSql;
  locks: LocksSql;
  /** The store's fenced release and submit (a submit may answer that its work tree needs verifying first). */
  release: InTx<[cmd: Command<'release'>, ended: H], Outcome<{ task: Task }>>;
  submit: InTx<[cmd: Command<'submit'>, ended: H], Submitted | TreeToVerify>;
};

/** How many work-tree locks the store's transaction ended so far (its `free` counts them; they wait for git, SPEC §14). */
const endedLocks = (tx: { endedLocks?: number | undefined }): number | undefined => tx.endedLocks;

/** The same transaction with another feature's statements. */
const as = <S>(q: Q<unknown>, sql: S): Q<S> => ({ sql, now: q.now });

export function* releaseWithNote<H extends ClaimEnded>(
  q: Q<ClaimEndsSql<H>>,
  cmd: Command<'release'>,
  ended: H,
): Prog<Outcome<{ task: Task }>> {
  // The agent whose claim this is (a claim_id names one claim of one agent), for the note.
  const holder = cmd.note
    ? ((yield* get<{ claimed_by: string | null }>(q.sql.holder, { id: cmd.task_id, claim_id: cmd.claim_id }))
        ?.claimed_by ?? null)
    : null;
  const out = yield* call(q.sql.release, cmd, ended);
  return yield* withNote(as(q, q.sql.messages), out, cmd.note, holder, 'release', true);
}

/** The general submit: a note, a change record or holds to take (SPEC §14) come this way. */
export function* submitWithSteps<H extends ClaimEnded>(
  q: Q<ClaimEndsSql<H>>,
  cmd: Command<'submit'>,
  ended: H,
): Prog<SubmitOutcome> {
  const out = yield* call(q.sql.submit, cmd, ended);
  if (!out.ok && out.reason === 'work_tree') return out;
  const steps = submitSteps(out, cmd);
  if (steps.hold) yield* holdAtSubmit(as(q, q.sql.locks), steps.hold);
  if (steps.queue) yield* queueIntegration(as(q, q.sql.integration), steps.queue);
  yield* withNote(as(q, q.sql.messages), out, cmd.note, steps.author, 'submit', steps.changed);
  return submitted(out, yield* call(endedLocks));
}

export function* cancelWithNote<H extends ClaimEnded>(
  q: Q<ClaimEndsSql<H>>,
  cmd: Command<'cancel'>,
  ended: H,
): Prog<Outcome<{ task: Task }>> {
  const open = cmd.note ? isOpenState((yield* get<{ state: string }>(q.sql.state, { id: cmd.task_id }))?.state) : false;
  const out = yield* cancel(as(q, CANCEL_SQL), cmd, ended);
  return yield* withNote(as(q, q.sql.messages), out, cmd.note, cmd.agent, 'cancel', open);
}
