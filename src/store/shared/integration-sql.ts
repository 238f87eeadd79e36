import type { DepsSql } from './deps.js';
import type { LandedSql } from './landed.js';
import type { MessagesSql } from './messages-sql.js';

export const INTEGRATION_COMMON = {
  resubmit: `UPDATE integrations SET head = @head, branch = @branch, worktree = @worktree, state = 'pending',
      reason = NULL, updated_at = @now::bigint
    WHERE (task_id = @task_id OR followup = @task_id) AND state IN ('conflict', 'check_failed', 'blocked') AND head <> @head
    RETURNING task_id`,
  takeSlot: `INSERT INTO integration_slots (board, holder, slot_id, lease_until)
    VALUES (@board, @holder, @slot_id, @lease_until::bigint)
    ON CONFLICT (board) DO UPDATE SET holder = excluded.holder, slot_id = excluded.slot_id, lease_until = excluded.lease_until
    WHERE integration_slots.lease_until <= @now::bigint OR integration_slots.slot_id = excluded.slot_id
    RETURNING lease_until`,
  slotHolder: 'SELECT holder, lease_until FROM integration_slots WHERE board = @board',
  releaseSlot: 'DELETE FROM integration_slots WHERE board = @board AND slot_id = @slot_id',
  openQueue: `SELECT i.*, t.title, t.claimed_by, t.created_by, t.blocked_by, t.priority
    FROM integrations AS i JOIN tasks AS t ON t.id = i.task_id
    WHERE i.board = @board AND i.state <> 'merged' ORDER BY i.seq`,
  fence: `SELECT 1 AS ok FROM integrations AS i JOIN integration_slots AS s ON s.board = i.board
    WHERE i.task_id = @task_id AND s.slot_id = @slot_id AND s.lease_until > @now::bigint FOR SHARE OF s`,
  known: 'SELECT 1 AS ok FROM integrations WHERE task_id = @task_id',
  // The row a result is about, locked: a merge the background look recorded meanwhile (landed.ts) is final.
  current: 'SELECT * FROM integrations WHERE task_id = @task_id FOR UPDATE',
  record: `UPDATE integrations SET state = @state, reason = @reason, commit_sha = @commit, tried_head = @head,
      target = @target, followup = COALESCE(@followup, followup), flaky = @flaky, updated_at = @now::bigint
    WHERE task_id = @task_id RETURNING *`,
  windowHeld: `SELECT 1 AS ok FROM integration_slots
    WHERE board = @board AND slot_id = @slot_id AND lease_until > @now::bigint FOR SHARE`,
  worker: 'SELECT claimed_by, created_by FROM tasks WHERE id = @task_id',
  approve: `UPDATE integrations SET approved = true, updated_at = @now::bigint
    WHERE task_id = @task_id AND state IN ('awaiting_review', 'pending') RETURNING *`,
  retry: `UPDATE integrations SET state = 'pending', reason = NULL, updated_at = @now::bigint
    WHERE task_id = @task_id AND state IN ('conflict', 'check_failed', 'blocked', 'pending') RETURNING *`,
  stateOf: 'SELECT state FROM integrations WHERE task_id = @task_id',
  taskIds: `SELECT task_id FROM integrations WHERE state = @state AND (@board::text IS NULL OR board = @board)
    ORDER BY seq LIMIT @limit::int`,
  boards: "SELECT DISTINCT board FROM integrations WHERE state <> 'merged'",
};

/**
 * A finished task enters the queue once (SPEC §15); `seq`: the store's value of a queued row's seq, or null when
 * the column's default gives it (PostgreSQL's sequence).
 */
const queueSql = (seq: string | null): string => `INSERT INTO integrations
      (task_id, board, state, worktree, branch, head, queued_at, updated_at${seq === null ? '' : ', seq'})
    SELECT id, board, 'pending', @worktree, @branch, @head, @now::bigint, @now::bigint${seq === null ? '' : `, ${seq}`}
    FROM tasks WHERE id = @task_id
    ON CONFLICT (task_id) DO NOTHING`;

/** The statements (each store adds a queued row's seq and a list of ids), and the store's own code called. */
export type IntegrationSql = typeof INTEGRATION_COMMON &
  Record<'queue' | 'byIds', string> & {
    messages: MessagesSql;
    /** A follow-up task's statements (deps.ts). */
    tasks: DepsSql;
    /** SPEC §11: merged work lands. */
    landed: LandedSql;
  };

/** A store's table of the integration queue: the common statements, its own two, and its tasks' tables. */
export const integrationSql = (tasks: DepsSql, own: { queuedSeq: string | null; byIds: string }): IntegrationSql => ({
  ...INTEGRATION_COMMON,
  queue: queueSql(own.queuedSeq),
  byIds: own.byIds,
  messages: tasks.landed.messages,
  tasks,
  landed: tasks.landed,
});
