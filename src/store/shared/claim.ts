/**
 * Rule 1, claiming, written once for both stores: the conditional write in PostgreSQL's text (SQLite's runner
 * leaves out the casts), its parameters, the claim by id (a program; sqlite/claim.ts claims next its own way),
 * a lost claim explained from the row as it is now (a blocked task's answer reads its open blockers), and
 * claim-next's loop.
 */
import { claimableBy, explainClaimLoss } from '../../core/board/rules.js';
import type { ClaimGrant } from '../../core/model.js';
import type { ClaimCommand, ClaimNextCommand, Outcome } from '../../core/ports.js';
import { type DepsSql, openBlockers } from './deps.js';
import { emit, get, type Prog, type Q } from './program.js';
import { type TaskRow, toFacts, toGrant } from './rows.js';
import { taskClaimed } from './task-events.js';

export const SET_CLAIMED = `SET state = 'claimed', claimed_by = @agent, claim_id = @claim_id, lease_until = @lease_until::bigint,
      attempts = attempts + 1, updated_at = @now::bigint, claim_session = @session_id, claim_lease_ms = @lease_ms,
      claim_end = NULL`;

// One conditional write. Visibility is part of the predicate, so a private task of someone else can never be
// won, whatever the interleaving.
export const CLAIM_BY_ID = `UPDATE tasks ${SET_CLAIMED}
  WHERE id = @task_id AND state = 'queued' AND expires_at > @now::bigint
    AND (for_agent IS NULL OR for_agent = @agent) AND blockers_open = 0
  RETURNING *`;

export const claimParams = (now: number, cmd: ClaimCommand | ClaimNextCommand) => ({
  agent: cmd.agent,
  claim_id: cmd.claim_id,
  lease_until: now + cmd.lease_ms,
  lease_ms: cmd.lease_ms,
  session_id: cmd.session_id,
  now,
});

/** A claim that won: its event and its grant. */
export function* claimWon(r: TaskRow): Prog<ClaimGrant> {
  yield* emit(taskClaimed(r));
  return toGrant(r, false);
}

/**
 * Rule 1, a claim by id: one conditional write; a miss is explained from the row as it is now. Under READ
 * COMMITTED (PostgreSQL) the holder may have released between our write and that read: the row then looks
 * claimable, and the write is tried again (a few turns). Under SQLite's one writer that cannot happen.
 */
export function* claimById(q: Q<DepsSql>, cmd: ClaimCommand): Prog<Outcome<ClaimGrant>> {
  for (let turn = 0; ; turn++) {
    const r = yield* get<TaskRow>(CLAIM_BY_ID, { ...claimParams(q.now, cmd), task_id: cmd.task_id });
    if (r) return { ok: true, ...(yield* claimWon(r)) };
    const current = yield* get<TaskRow>('SELECT * FROM tasks WHERE id = @id', { id: cmd.task_id });
    const requeued =
      current?.state === 'queued' &&
      current.expires_at > q.now &&
      current.blockers_open === 0 &&
      claimableBy({ for: current.for_agent }, cmd.agent);
    if (requeued && turn < 5) continue;
    return yield* claimLost(q.sql, current, cmd.agent, q.now);
  }
}

/**
 * A claim that won nothing, from the row as it is now. Rule 2: the holder claiming again gets its existing
 * claim, lease unchanged. A `blocked` answer names the task's open blockers (SPEC §11).
 */
export function* claimLost(
  sql: DepsSql,
  current: TaskRow | undefined,
  agent: string,
  now: number,
): Prog<Outcome<ClaimGrant>> {
  const why = explainClaimLoss(current ? toFacts(current) : null, agent, now);
  if (why.ok && current) return { ok: true, ...toGrant(current, true) };
  if (why.ok) return { ok: false, reason: 'not_found' };
  return why.reason === 'blocked' && current ? { ...why, blocked: yield* openBlockers(sql, current) } : why;
}

/** One look of a claim-next: the grant, or why there is none yet (`taken`: others took the candidate first). */
export type NextLook = { grant: ClaimGrant } | 'due' | 'empty' | 'taken';

/**
 * Claim-next's loop, the same in both stores (SPEC §2): an empty look answers null and writes nothing; something
 * due is moved by a write (`moveDue`), then we look again; so we do when other workers took the candidate first.
 */
export async function claimNextLoop(
  look: () => Promise<NextLook>,
  moveDue: () => Promise<unknown>,
): Promise<ClaimGrant | null> {
  for (;;) {
    const found = await look();
    if (found === 'empty') return null;
    if (found === 'due') await moveDue();
    else if (found !== 'taken') return found.grant;
  }
}
