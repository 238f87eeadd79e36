/**
 * The lines of each pane of `coord top`, for a given width: the task list by state, agents and locks,
 * the timeline, the header. Pure functions of the board state, so every line's width can be tested.
 */
import { eventLabel, eventSubject, eventText } from '../../core/events.js';
import type { IntegrationState } from '../../core/integration/integration.js';
import type { CoordEvent } from '../../core/model.js';
import {
  type BoardState,
  filterText,
  nonAgentRole,
  SECTIONS,
  type Section,
  type TopAgent,
  type TopTask,
} from './board-state.js';
import { cell, clock, column, countdown, esc, fit, width } from './cells.js';

export interface ListLine {
  /** Formatted on demand: only the lines on screen are drawn, so a board of thousands stays cheap. */
  text(): string;
  /** The task this line shows; headers have none. */
  taskId?: string;
}

const TITLES: Record<Section, string> = {
  claimed: 'CLAIMED',
  queued: 'QUEUED',
  blocked: 'BLOCKED',
  done: 'RECENTLY FINISHED',
};
const SECTION_STYLE: Record<Section, string> = {
  claimed: 'yellow-fg',
  queued: 'cyan-fg',
  blocked: 'magenta-fg',
  done: 'green-fg',
};
const STATE_STYLE: Record<string, string> = {
  completed: 'green-fg',
  failed: 'red-fg',
  cancelled: 'gray-fg',
  expired: 'gray-fg',
};

const INTEGRATION_STYLE: Record<IntegrationState, string | undefined> = {
  none: undefined,
  pending: 'yellow-fg',
  awaiting_review: 'yellow-fg',
  merged: 'green-fg',
  conflict: 'red-fg',
  check_failed: 'red-fg',
  blocked: 'magenta-fg',
};

/** A completed task's integration state in a few words (`check failed`), or '' when it has none. */
export const integrationTag = (t: TopTask): string =>
  t.integration && t.integration.state !== 'none' ? t.integration.state.replaceAll('_', ' ') : '';

const children = (t: TopTask): string => (t.children ? ` [${t.children.completed}/${t.children.total}]` : '');

function waitsFor(t: TopTask): string {
  if (Array.isArray(t.blocked) && t.blocked.length) return t.blocked.map((b) => `#${b.id}(${b.state})`).join(' ');
  if (Array.isArray(t.blocked_by) && t.blocked_by.length) return t.blocked_by.map((id) => `#${id}`).join(' ');
  return '…';
}

/** One task's row; `cols` is the inner width of the list pane. */
export function taskRow(t: TopTask, section: Section, cols: number, now: number, color: boolean): string {
  const id = column(`#${t.id}`, 10, undefined, color);
  const rest = cols - 10;
  switch (section) {
    case 'claimed': {
      const lease = countdown(t.lease_until, now);
      const soon = lease === 'lapsed' || Date.parse(t.lease_until ?? '') - now < 30_000;
      return (
        id +
        column(t.claimed_by ?? '', 17, 'bold', color) +
        column(lease, 8, soon ? 'red-fg' : 'yellow-fg', color) +
        cell(t.title + children(t), Math.max(0, rest - 25), undefined, color, false)
      );
    }
    case 'queued': {
      const tag = `p${t.priority} ${t.kind}${t.for ? ` →${t.for}` : ''}`;
      return (
        id +
        cell(tag, 16, 'cyan-fg', color) +
        cell(t.title + children(t), Math.max(0, rest - 16), undefined, color, false)
      );
    }
    case 'blocked': {
      const wcols = Math.min(40, Math.max(14, Math.floor(rest / 2)));
      return (
        id +
        column(`waits ${waitsFor(t)}`, wcols, 'magenta-fg', color) +
        cell(t.title, Math.max(0, rest - wcols), undefined, color, false)
      );
    }
    case 'done': {
      // SPEC §15: where a completed task's commits stand with the target (issue 22), before its title.
      const merge = integrationTag(t);
      const mcols = merge ? Math.min(16, merge.length + 1) : 0;
      return (
        id +
        column(t.state, 10, STATE_STYLE[t.state], color) +
        column(clock(t.updated_at), 9, 'gray-fg', color) +
        (merge ? column(merge, mcols, INTEGRATION_STYLE[t.integration?.state ?? 'none'], color) : '') +
        cell(t.title, Math.max(0, rest - 19 - mcols), undefined, color, false)
      );
    }
  }
}

export function taskList(state: BoardState, cols: number, now: number, color: boolean): ListLine[] {
  const sections = state.sections();
  const lines: ListLine[] = [];
  for (const s of SECTIONS) {
    const tasks = sections[s];
    if (s === 'blocked' && tasks.length === 0) continue;
    if (s === 'done' && tasks.length === 0) continue;
    lines.push({ text: () => cell(`${TITLES[s]} ${tasks.length}`, cols, SECTION_STYLE[s], color, false) });
    if (tasks.length === 0) lines.push({ text: () => cell('  (none)', cols, 'gray-fg', color, false) });
    for (const t of tasks) lines.push({ text: () => taskRow(t, s, cols, now, color), taskId: t.id });
  }
  return lines;
}

/** The list pane's lines on screen (`rows` from `offset`, the selected one inverse) and its label. */
export function listPane(
  lines: ListLine[],
  sel: number,
  offset: number,
  rows: number,
  name = 'tasks',
): { content: string; label: string } {
  const content = lines
    .slice(offset, offset + rows)
    .map((l, i) => (offset + i === sel ? `{inverse}${l.text()}{/inverse}` : l.text()))
    .join('\n');
  const label =
    lines.length > rows
      ? ` ${name} ${offset + 1}-${Math.min(lines.length, offset + rows)}/${lines.length} `
      : ` ${name} `;
  return { content, label };
}

function agentLines(a: TopAgent, cols: number, color: boolean, role?: string): string[] {
  const unread = typeof a.unread === 'number' && a.unread > 0 ? ` ✉${a.unread}` : '';
  const name = `${a.active ? '●' : '○'} ${a.name}${role ? ` (${role})` : ''}`;
  const nameCols = Math.max(4, cols - unread.length);
  const lines = [
    cell(name, nameCols, a.active ? 'green-fg' : 'gray-fg', color, !!unread) +
      (unread ? cell(unread, cols - nameCols, 'yellow-fg', color, false) : ''),
  ];
  if (a.worktree)
    lines.push(
      cell(`  in ${a.worktree.split('/').pop()}${a.branch ? ` [${a.branch}]` : ''}`, cols, 'gray-fg', color, false),
    );
  if (a.claims.length)
    lines.push(cell(`  holds ${a.claims.map((id) => `#${id}`).join(' ')}`, cols, undefined, color, false));
  return lines;
}

/**
 * Agents, then the names that are not agents (the integrator, a person's CLI) apart and marked as what they
 * are, then locks.
 */
export function sidePane(state: BoardState, cols: number, now: number, color: boolean): string[] {
  const agents = state.agents.filter((a) => !nonAgentRole(a.name));
  const others = state.agents.filter((a) => nonAgentRole(a.name));
  const lines: string[] = [cell(`AGENTS ${agents.length}`, cols, 'bold', color, false)];
  if (agents.length === 0) lines.push(cell('  none seen', cols, 'gray-fg', color, false));
  for (const a of agents) lines.push(...agentLines(a, cols, color));
  if (others.length) {
    lines.push('', cell(`PEOPLE · SERVICES ${others.length}`, cols, 'bold', color, false));
    for (const a of others) lines.push(...agentLines(a, cols, color, nonAgentRole(a.name)));
  }
  lines.push('', cell(`LOCKS ${state.locks.length}`, cols, 'bold', color, false));
  if (state.locks.length === 0) lines.push(cell('  none', cols, 'gray-fg', color, false));
  for (const l of state.locks) {
    lines.push(cell(l.resources.join(' '), cols, 'cyan-fg', color, false));
    lines.push(cell(`  ${l.agent} ${countdown(l.lease_until, now)}`, cols, undefined, color, false));
  }
  return lines;
}

/** What an event says beyond its type, subject and agent. */
/** The event's text from the catalogue (core/events.ts): the same words as `coord events`. */
export const eventDetail = (e: CoordEvent): string => eventText(e);

const EVENT_STYLE: Record<string, string> = {
  'task.created': 'cyan-fg',
  'task.claimed': 'yellow-fg',
  'task.completed': 'green-fg',
  'task.failed': 'red-fg',
  'task.ready': 'magenta-fg',
};

/** The type column's width: the longest label among `events` (the catalogue's words, never cut), and a space. */
export const typeColumn = (events: CoordEvent[]): number => Math.max(0, ...events.map((e) => width(eventLabel(e)))) + 1;

export function eventRow(e: CoordEvent, cols: number, color: boolean, withBoard: boolean, typeCols?: number): string {
  // A lock's line is what it covers; a task's, its id and the catalogue's text.
  const subject = eventSubject(e);
  const tcols = typeCols ?? typeColumn([e]);
  const head =
    column(clock(e.at), 9, 'gray-fg', color) +
    column(eventLabel(e), tcols, EVENT_STYLE[e.type], color) +
    column(e.agent ?? '-', 17, 'bold', color);
  const what = `${e.type.startsWith('lock.') ? subject : `${subject} ${eventDetail(e)}`}${withBoard ? ` [${e.board}]` : ''}`;
  const rest = cols - 26 - tcols;
  return rest > 0 ? head + cell(what.trim(), rest, undefined, color, false) : head;
}

/** Newest first, as many as fit. */
export function timelineLines(state: BoardState, cols: number, rows: number, color: boolean): string[] {
  const shown = state.timeline().slice(-rows).reverse();
  if (shown.length === 0) return [cell('no events yet', cols, 'gray-fg', color, false)];
  const tcols = typeColumn(shown);
  return shown.map((e) => eventRow(e, cols, color, state.board === '', tcols));
}

export function headerLine(state: BoardState, cols: number, status: { live: boolean }): string {
  const s = state.sections();
  const unread = state.unreadMine();
  const parts = [
    'coord top',
    `board ${state.board || '(all)'}`,
    status.live ? 'live' : 'reconnecting…',
    `${s.claimed.length} claimed · ${s.queued.length} queued${s.blocked.length ? ` · ${s.blocked.length} blocked` : ''}`,
  ];
  if (state.attention.length > 0) parts.push(`${state.attention.length} need you (press 4)`);
  if (unread !== undefined) parts.push(`${unread} unread`);
  const f = filterText(state.filter);
  if (f) parts.push(`filter: ${f}`);
  return `{inverse}${esc(fit(parts.join('  ·  '), cols, true))}{/inverse}`;
}

/** The help line: every key, the views' too (1-4), in words when there is room and tersely at 80 columns. */
export const KEYS =
  '↑↓ move  enter open  n post  c cancel  / filter  b board  1 tasks  2 plan  3 trees  4 attention  q quit';
export const KEYS_NARROW = '↑↓ enter n post c cancel / filter b board 1 tasks 2 plan 3 trees 4 attn q quit';

export function footerLine(cols: number, message: string | undefined, color: boolean): string {
  if (message) return cell(message, cols, 'yellow-fg', color, false);
  return cell(width(KEYS) <= cols ? KEYS : KEYS_NARROW, cols, 'gray-fg', color, false);
}
