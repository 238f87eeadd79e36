/** The text of one task's detail view in `coord top`: its fields, body, result, change, notes, dependencies, history. */

import { artifactPath } from '../../api/paths.js';
import { changeLines } from '../../core/change-text.js';
import { integrationLine } from '../../core/integration.js';
import type { CoordEvent, Note as CoordNote } from '../../core/model.js';
import { terminalText } from '../terminal-text.js';
import type { TopTask } from './board-state.js';
import { clock, countdown, esc } from './cells.js';
import { eventDetail } from './panes.js';

/** A note as the detail view shows it (the task's JSON carries the last 20). */
export type Note = Pick<CoordNote, 'agent' | 'text' | 'at'> & Partial<Pick<CoordNote, 'id'>>;

export interface Artifact {
  id: string;
  name?: string | null;
  size?: number;
  content_type?: string;
}

export type DetailTask = TopTask & { notes?: Note[]; artifacts?: Artifact[] };

const safe = (s: string): string => esc(terminalText(s));

function section(title: string, color: boolean): string {
  return color ? `{bold}{underline}${title}{/underline}{/bold}` : `{bold}${title}{/bold}`;
}

export function detailText(
  t: DetailTask,
  history: CoordEvent[],
  dependents: { id: string; state: string; title: string }[],
  daemonUrl: string,
  now: number,
  color: boolean,
): string {
  const lines: string[] = [];
  const kv = (k: string, v: string) => lines.push(`{bold}${k.padEnd(10)}{/bold} ${safe(v)}`);
  lines.push(`{bold}#${safe(t.id)}  ${safe(t.title)}{/bold}`, '');
  kv('state', `${t.state}${t.result_status && t.state !== t.result_status ? ` (${t.result_status})` : ''}`);
  if (t.claimed_by && t.state !== 'claimed') kv('worked by', t.claimed_by);
  else if (t.claimed_by)
    kv('holder', `${t.claimed_by}${t.lease_until ? ` · lease ${countdown(t.lease_until, now)}` : ''}`);
  kv('kind', `${t.kind} · priority ${t.priority}${t.labels.length ? ` · labels ${t.labels.join(', ')}` : ''}`);
  kv('board', t.board);
  kv('posted', `by ${t.created_by} at ${clock(t.created_at)}${t.for ? ` · for ${t.for}` : ''}`);
  kv('attempts', String(t.attempts));
  // SPEC §15 (issue 22): the integration state and its reason, as `coord show` says it.
  const merge = t.integration ? integrationLine(t.id, t.integration) : null;
  if (merge) kv('integration', `${t.integration?.state.replaceAll('_', ' ')} · ${merge.replace(`#${t.id} `, '')}`);
  if (t.parent) kv('parent', `#${t.parent}`);
  if (t.children) kv('children', `${t.children.completed}/${t.children.total} completed`);

  lines.push('', section('Body', color));
  lines.push(t.body ? safe(t.body) : '(empty)');

  if (t.result !== null && t.result !== undefined) {
    lines.push('', section('Result', color));
    lines.push(safe(typeof t.result === 'string' ? t.result : JSON.stringify(t.result, null, 2)));
  }

  // SPEC §14: the change record of a completed task.
  const change = changeLines(t.change);
  if (change.length) {
    lines.push('', section('Change', color));
    for (const l of change) lines.push(safe(l.replace(/^change: /, '')));
  }

  const blockers = Array.isArray(t.blocked_by) ? t.blocked_by : [];
  if (blockers.length || dependents.length) {
    lines.push('', section('Dependencies', color));
    const open = new Map((t.blocked ?? []).map((b) => [b.id, b.state]));
    for (const id of blockers)
      lines.push(`waits for #${safe(id)} ${open.has(id) ? `(${safe(open.get(id) ?? '')})` : '(completed)'}`);
    for (const d of dependents) lines.push(`blocks    #${safe(d.id)} (${safe(d.state)}) ${safe(d.title)}`);
  }

  if (Array.isArray(t.artifacts) && t.artifacts.length) {
    lines.push('', section('Artifacts', color));
    for (const a of t.artifacts) {
      lines.push(`${safe(a.name ?? a.id)}  ${safe(`${daemonUrl}${artifactPath(t.id, a.id)}`)}`);
    }
  }

  if (Array.isArray(t.notes) && t.notes.length) {
    const count = typeof t.notes_count === 'number' ? t.notes_count : t.notes.length;
    lines.push('', section(`Notes (${count})`, color));
    for (const n of t.notes) lines.push(`${clock(n.at)} {bold}${safe(n.agent)}{/bold}: ${safe(n.text)}`);
  }

  lines.push('', section('History', color));
  if (history.length === 0) lines.push('(no events)');
  for (const e of history) {
    lines.push(`${clock(e.at)}  ${e.type.padEnd(15)} ${safe(e.agent ?? '-').padEnd(16)} ${safe(eventDetail(e))}`);
  }
  lines.push('', '{gray-fg}esc close · c cancel · ↑↓ scroll{/gray-fg}');
  const text = lines.join('\n');
  return color ? text : text.replace(/\{\/?gray-fg\}/g, '');
}
