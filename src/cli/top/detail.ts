/** The text of one task's detail view in `coord top`: its fields, body, result, change, notes, dependencies, history. */

import { artifactPath } from '../../api/paths.js';
import { type CheckingWindow, checkingText, eventLabel } from '../../core/events.js';
import { integrationLine } from '../../core/integration/integration.js';
import type { CoordEvent, Note as CoordNote } from '../../core/model.js';
import { changeLines } from '../../core/worktrees/change-text.js';
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

type Dependent = { id: string; state: string; title: string };

const safe = (s: string): string => esc(terminalText(s));

function section(title: string, color: boolean): string {
  return color ? `{bold}{underline}${title}{/underline}{/bold}` : `{bold}${title}{/bold}`;
}

type Add = (...lines: string[]) => void;

/** The fields at the top: state, holder, kind, board, who posted it, attempts, integration, family. */
function fieldLines(t: DetailTask, now: number, add: Add, checking: CheckingWindow | undefined): void {
  const kv = (k: string, v: string) => add(`{bold}${k.padEnd(10)}{/bold} ${safe(v)}`);
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
  // SPEC §15: the window it is being checked in now (integration.window), until it is decided.
  if (checking) kv('checking', checkingText(checking).replace(/^checking (together: )?/, ''));
  if (t.parent) kv('parent', `#${t.parent}`);
  if (t.children) kv('children', `${t.children.completed}/${t.children.total} completed`);
}

/** What it waits for and what waits for it. */
function dependencyLines(t: DetailTask, dependents: Dependent[]): string[] {
  const blockers = Array.isArray(t.blocked_by) ? t.blocked_by : [];
  const open = new Map((t.blocked ?? []).map((b) => [b.id, b.state]));
  return [
    ...blockers.map((id) => `waits for #${safe(id)} ${open.has(id) ? `(${safe(open.get(id) ?? '')})` : '(completed)'}`),
    ...dependents.map((d) => `blocks    #${safe(d.id)} (${safe(d.state)}) ${safe(d.title)}`),
  ];
}

function notesTitle(t: DetailTask, notes: Note[]): string {
  return `Notes (${typeof t.notes_count === 'number' ? t.notes_count : notes.length})`;
}

/** The sections below the fields, each only when it has something to say: [title, lines]. */
function sections(
  t: DetailTask,
  history: CoordEvent[],
  dependents: Dependent[],
  daemonUrl: string,
): [string, string[]][] {
  const notes = Array.isArray(t.notes) ? t.notes : [];
  const artifacts = Array.isArray(t.artifacts) ? t.artifacts : [];
  const result = t.result === null || t.result === undefined ? null : t.result;
  // The history's type column: the catalogue's label (as the timeline and `coord events` say it), never cut.
  const tcols = Math.max(15, ...history.map((e) => eventLabel(e).length));
  return [
    ['Body', [t.body ? safe(t.body) : '(empty)']],
    ['Result', result === null ? [] : [safe(typeof result === 'string' ? result : JSON.stringify(result, null, 2))]],
    // SPEC §14: the change record of a completed task.
    ['Change', changeLines(t.change).map((l) => safe(l.replace(/^change: /, '')))],
    ['Dependencies', dependencyLines(t, dependents)],
    ['Artifacts', artifacts.map((a) => `${safe(a.name ?? a.id)}  ${safe(`${daemonUrl}${artifactPath(t.id, a.id)}`)}`)],
    [notesTitle(t, notes), notes.map((n) => `${clock(n.at)} {bold}${safe(n.agent)}{/bold}: ${safe(n.text)}`)],
    [
      'History',
      history.length === 0
        ? ['(no events)']
        : history.map(
            (e) =>
              `${clock(e.at)}  ${safe(eventLabel(e)).padEnd(tcols)} ${safe(e.agent ?? '-').padEnd(16)} ${safe(eventDetail(e))}`,
          ),
    ],
  ];
}

export function detailText(
  t: DetailTask,
  history: CoordEvent[],
  dependents: Dependent[],
  daemonUrl: string,
  now: number,
  color: boolean,
  checking?: CheckingWindow,
): string {
  const lines: string[] = [`{bold}#${safe(t.id)}  ${safe(t.title)}{/bold}`, ''];
  fieldLines(t, now, (...l) => lines.push(...l), checking);
  for (const [title, body] of sections(t, history, dependents, daemonUrl)) {
    // The body and the history always show (saying when they are empty); the rest only with content.
    if (body.length) lines.push('', section(title, color), ...body);
  }
  lines.push('', '{gray-fg}esc close · c cancel · ↑↓ scroll{/gray-fg}');
  const text = lines.join('\n');
  return color ? text : text.replace(/\{\/?gray-fg\}/g, '');
}
