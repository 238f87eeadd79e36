/**
 * SQLite's inbox: the written-once look (shared/inbox.ts), and before it the common poll's single statement
 * and the empty answers kept until the file changes. Read-only.
 */
import type { InboxQuery, InboxView } from '../../core/ports.js';
import { INBOX_SQL, inbox as inboxView } from '../shared/inbox.js';
import type { Db } from './database.js';
import { inSqlite, runSync } from './runner.js';
import { stmt } from './tx.js';

/**
 * The common poll — nothing of the agent's, nothing it may claim or that changed — answered by one statement
 * (each costs ~10–30 µs here, more than the index lookups in it): the cursor, whether the full look is needed,
 * the blocked count, whether the agent has open messages, and when the next lease or ttl falls due.
 */
const PROBE = (since: boolean) => `SELECT (SELECT COALESCE(MAX(seq), 0) FROM events) AS cursor,
  ${
    since
      ? 'EXISTS (SELECT 1 FROM events WHERE board = @board AND seq > @since AND task_id IS NOT NULL)'
      : `EXISTS (SELECT 1 FROM tasks WHERE claimed_by = @agent AND board = @board AND state = 'claimed')
    OR EXISTS (SELECT 1 FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0
                 AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now)`
  } AS look,
  (${inSqlite(INBOX_SQL.blocked)}) AS blocked,
  EXISTS (SELECT 1 FROM message_receipts WHERE recipient = @agent AND board = @board AND acked_at IS NULL) AS mail,
  (SELECT MIN(lease_until) FROM tasks WHERE state = 'claimed') AS lease_due,
  (SELECT MIN(expires_at) FROM tasks WHERE state IN ('queued', 'claimed')) AS ttl_due`;
const PROBES = [PROBE(false), PROBE(true)] as const;

interface ProbeRow {
  cursor: number;
  look: number;
  blocked: number;
  mail: number;
  lease_due: number | null;
  ttl_due: number | null;
}

export interface QuickInbox {
  /** The answer when it is empty; null when the full look is needed. */
  view: InboxView | null;
  /** Whether the agent has unacknowledged messages on the board. */
  mail: boolean;
  /** When the next lease or ttl falls due (Infinity: none). */
  nextDue: number;
}

/** One statement first: `due` when a lease or ttl has lapsed and must be moved before anything is read. */
export function quickInbox(db: Db, now: number, q: InboxQuery): 'due' | QuickInbox {
  const r = stmt(db, PROBES[q.since === undefined ? 0 : 1]).get({
    agent: q.agent,
    board: q.board,
    now,
    ...(q.since === undefined ? {} : { since: q.since }),
  }) as ProbeRow;
  const nextDue = Math.min(r.lease_due ?? Infinity, r.ttl_due ?? Infinity);
  if (nextDue <= now) return 'due';
  const mail = r.mail === 1;
  if (r.look === 1) return { view: null, mail, nextDue };
  return { view: { cursor: r.cursor, claims: [], tasks: [], more: 0, gone: [], blocked: r.blocked }, mail, nextDue };
}

/**
 * Empty answers, kept until anything is written to the file — by this connection (total_changes) or another
 * (PRAGMA data_version) — or a lease or ttl falls due: an idle agent's poll then reads two counters instead of
 * the board. At most `MAX_KEPT` answers (agent, board, cursor); all are dropped at the first change.
 */
export class EmptyInboxes {
  private static readonly MAX_KEPT = 10_000;
  private readonly counters;
  private readonly dataVersion;
  private changes = -1;
  private version = -1;
  private until = Infinity;
  private readonly kept = new Map<string, InboxView & { mail: boolean }>();

  constructor(db: Db) {
    this.counters = db.prepare('SELECT total_changes()').pluck();
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  private static key(q: InboxQuery): string {
    return `${q.agent}\u0000${q.board}\u0000${q.since ?? ''}\u0000${q.limit}`;
  }

  /** A kept answer that still holds at `now` (a copy), after dropping every answer a write made stale. */
  get(q: InboxQuery, now: number): (InboxView & { mail: boolean }) | undefined {
    const changes = this.counters.get() as number;
    const version = this.dataVersion.get() as number;
    if (changes !== this.changes || version !== this.version || now >= this.until) {
      this.kept.clear();
      this.changes = changes;
      this.version = version;
      this.until = Infinity;
      return undefined;
    }
    const v = this.kept.get(EmptyInboxes.key(q));
    return v && { ...v, claims: [], tasks: [], gone: [] };
  }

  /** Keeps an empty answer read right after `get` (same turn: nothing can have been written in between). */
  put(q: InboxQuery, quick: QuickInbox): void {
    if (!quick.view || this.kept.size >= EmptyInboxes.MAX_KEPT) return;
    this.until = Math.min(this.until, quick.nextDue);
    this.kept.set(EmptyInboxes.key(q), { ...quick.view, mail: quick.mail });
  }
}

export const inbox = (db: Db, now: number, q: InboxQuery): InboxView => runSync(inboxView(INBOX_SQL, now, q), db);
