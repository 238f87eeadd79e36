/** What both stores share about dependencies (SPEC §11): the checked links of a new task and its event. */

import type { EventData } from '../../core/events.js';
import type { IntegrationState } from '../../core/integration/integration.js';
import type { BlockerState, TaskState } from '../../core/model.js';
import type { CreateTaskCommand, Lost } from '../../core/ports.js';
import { newTaskId } from '../../core/shared/ids.js';
import { rowVisibleTo } from './visibility.js';

/** A blocker of a task about to be written: its state now, and whether it has landed (SPEC §11). */
export interface LinkedBlocker {
  id: string;
  state: TaskState;
  landed: boolean;
}

/** The blockers and the parent of a task about to be written. */
export interface Links {
  blockers: LinkedBlocker[];
  parent: string | null;
}

/** A row a link names, as far as the checks need it. */
export interface LinkRow {
  id: string;
  board: string;
  state: TaskState;
  for_agent: string | null;
  created_by: string;
  handed_by: string | null;
  /** landed_at is set: its dependents counted it done (SPEC §11). 0/1 on SQLite. */
  landed: boolean | number;
  /** Its integration's state, when it has one (completed with commits). */
  integration: IntegrationState | null;
}

/** The columns a link's checks and its blocked list read; `t` is the tasks row, `i` its integration (LEFT JOIN). */
export const LINK_COLUMNS = `t.id, t.board, t.state, t.for_agent, t.created_by, t.handed_by,
  t.landed_at IS NOT NULL AS landed, i.state AS integration`;

export const linked = (r: LinkRow): LinkedBlocker => ({ id: r.id, state: r.state, landed: Boolean(r.landed) });

export const blockerState = (r: LinkRow): BlockerState => ({
  id: r.id,
  state: r.state,
  landed: Boolean(r.landed),
  ...(r.integration !== null ? { integration: r.integration } : {}),
});

/**
 * Every id must name a task of this board that `agent` may see; the first
 * that does not is `not_found` naming it (SPEC §11). `found` holds the rows.
 */
export function checkLinkRows(
  found: ReadonlyMap<string, LinkRow>,
  board: string,
  agent: string,
  blockers: readonly string[],
  parent: string | null,
): { ok: true; links: Links } | Lost {
  for (const id of parent === null ? blockers : [...blockers, parent]) {
    const r = found.get(id);
    if (!r || r.board !== board || !rowVisibleTo(r, agent)) {
      return { ok: false, reason: 'not_found', id };
    }
  }
  return { ok: true, links: { blockers: blockers.map((id) => linked(found.get(id)!)), parent } };
}

/** The blockers not landed yet: what a new task's blockers_open starts at. */
export const openCount = (blockers: readonly LinkedBlocker[]): number => blockers.filter((b) => !b.landed).length;

/** The task.created event's data; the edges ride along so the event log alone shows the graph. */
export function createdData(
  r: { title: string; kind: string; priority: number; for_agent: string | null },
  links: Links,
): EventData<'task.created'> {
  return {
    title: r.title,
    kind: r.kind,
    priority: r.priority,
    for: r.for_agent,
    ...(links.blockers.length ? { blocked_by: links.blockers.map((b) => b.id) } : {}),
    ...(links.parent ? { parent: links.parent } : {}),
  };
}

/** A new task's row with its checked links (a fresh id each try: a taken one is drawn again); lists as arrays. */
export const taskValues = (cmd: Omit<CreateTaskCommand, 'blocked_by' | 'parent'>, links: Links, now: number) => ({
  id: newTaskId(),
  board: cmd.board,
  kind: cmd.kind,
  title: cmd.title,
  body: cmd.body,
  priority: cmd.priority,
  labels: cmd.labels,
  for_agent: cmd.for,
  created_by: cmd.created_by,
  now,
  expires_at: now + cmd.ttl_ms,
  idempotency_key: cmd.idempotency_key,
  payload_hash: cmd.payload_hash,
  blocked_by: links.blockers.map((b) => b.id),
  blockers_open: openCount(links.blockers),
  parent: links.parent,
});
