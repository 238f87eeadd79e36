/** What both stores share about dependencies (SPEC §11): the checked links of a new task and its event. */

import type { EventData } from '../../core/events.js';
import type { Blocker } from '../../core/model.js';
import type { Lost } from '../../core/ports.js';
import { rowVisibleTo } from './visibility.js';

/** The blockers (ids with their states now) and the parent of a task about to be written. */
export interface Links {
  blockers: Blocker[];
  parent: string | null;
}

/** A row a link names, as far as the checks need it. */
export interface LinkRow {
  id: string;
  board: string;
  state: Blocker['state'];
  for_agent: string | null;
  created_by: string;
}

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
  return { ok: true, links: { blockers: blockers.map((id) => ({ id, state: found.get(id)!.state })), parent } };
}

export const openCount = (blockers: readonly Blocker[]): number =>
  blockers.filter((b) => b.state !== 'completed').length;

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
