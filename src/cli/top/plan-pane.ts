/**
 * `coord top`'s plan pane (SPEC §19): the dependency tree of each open goal — a task nothing else waits for
 * that has not landed — each task with its state and integration state, drawn like `coord tree`. The same
 * rule as the dashboard's plan view (server/web/plan.js): a task's children are what it waits for and the
 * tasks whose parent it is. Made from the tasks top holds; a task it does not hold is named, and listed in
 * `missing` so the feed can read it. Under the title, the windows the integrator is checking now.
 */
import { checkingText } from '../../core/integration/checking-windows.js';
import type { BoardState, TopTask } from './board-state.js';
import { cell, width } from './cells.js';
import type { ListLine } from './panes.js';

const GONE = new Set(['cancelled', 'expired']);
const DEPTH = 8;

/** Landed: completed, with nothing left to merge (merged, or no commits). */
const landed = (t: TopTask): boolean =>
  t.state === 'completed' && (!t.integration || ['none', 'merged'].includes(t.integration.state));

export interface Plan {
  /** The goals that have something under them, oldest first. */
  goals: string[];
  /** What each task is made of: its blockers, then its children. */
  under: Map<string, string[]>;
  /** Open goals with nothing under them: counted, not drawn. */
  single: number;
}

export function planOf(tasks: ReadonlyMap<string, TopTask>): Plan {
  const under = new Map<string, string[]>();
  const waitedOn = new Set<string>();
  const add = (parent: string, id: string) => {
    const kids = under.get(parent) ?? [];
    if (!kids.includes(id)) kids.push(id);
    under.set(parent, kids);
    waitedOn.add(id);
  };
  for (const t of tasks.values()) {
    if (GONE.has(t.state)) continue;
    for (const b of t.blocked_by ?? []) add(t.id, b);
    if (t.parent) add(t.parent, t.id);
  }
  const open = [...tasks.values()]
    .filter((t) => !GONE.has(t.state) && !landed(t) && !waitedOn.has(t.id))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const goals = open.filter((g) => under.has(g.id)).map((g) => g.id);
  return { goals, under, single: open.length - goals.length };
}

const STYLE: Record<string, string> = {
  claimed: 'yellow-fg',
  ready: 'cyan-fg',
  blocked: 'magenta-fg',
  completed: 'green-fg',
  failed: 'red-fg',
};
const BAD_MERGE = new Set(['conflict', 'check_failed', 'blocked']);

/** A task's state as the plan says it: ready / blocked / claimed by X / completed · merged. */
export function planState(t: TopTask): { text: string; style: string | undefined } {
  if (t.state === 'queued') {
    const blocked = t.ready === false || (t.blocked?.length ?? 0) > 0;
    return { text: blocked ? 'blocked' : 'ready', style: STYLE[blocked ? 'blocked' : 'ready'] };
  }
  if (t.state === 'claimed') return { text: `claimed by ${t.claimed_by ?? '?'}`, style: STYLE.claimed };
  const merge = t.integration && t.integration.state !== 'none' ? t.integration.state : '';
  const text = merge ? `${t.state} · ${merge.replaceAll('_', ' ')}` : t.state;
  const style = BAD_MERGE.has(merge)
    ? 'red-fg'
    : merge === 'merged'
      ? 'green-fg'
      : merge
        ? 'yellow-fg'
        : STYLE[t.state];
  return { text, style };
}

/** One node's line: the tree's branches, the id, the state in colour, the title in what is left. */
function nodeLine(prefix: string, id: string, t: TopTask | undefined, cols: number, color: boolean): string {
  const head = `${prefix}#${id} `;
  if (!t) return cell(`${head}(not loaded)`, cols, 'gray-fg', color, false);
  const s = planState(t);
  const stateText = `[${s.text}] `;
  const left = cols - width(head) - width(stateText);
  return (
    cell(head, width(head), undefined, color, false) +
    cell(stateText, Math.min(cols - width(head), width(stateText)), s.style, color, false) +
    (left > 0 ? cell(t.title, left, undefined, color, false) : '')
  );
}

/** The plan pane's lines; `missing` gets the ids the tree names but top does not hold. */
export function planLines(
  state: BoardState,
  cols: number,
  color: boolean,
  missing: Set<string> = new Set(),
): ListLine[] {
  const { goals, under, single } = planOf(state.tasks);
  const lines: ListLine[] = [
    {
      text: () => cell(`PLAN ${goals.length} open goal${goals.length === 1 ? '' : 's'}`, cols, 'bold', color, false),
    },
  ];
  // SPEC §15: what the integrator is checking together now, until each of its tasks is decided.
  for (const w of state.checking)
    lines.push({ text: () => cell(`  ${checkingText(w)}`, cols, 'yellow-fg', color, false) });
  // A task met twice (two goals wait for it) is selectable once: moving the selection never sticks.
  const listed = new Set<string>();
  const walk = (id: string, prefix: string, branch: string, seen: Set<string>, depth: number) => {
    const t = state.tasks.get(id);
    if (!t) missing.add(id);
    lines.push({
      text: () => nodeLine(prefix + branch, id, t, cols, color),
      ...(listed.has(id) ? {} : { taskId: id }),
    });
    listed.add(id);
    const kids = under.get(id) ?? [];
    if (!kids.length || seen.has(id) || depth >= DEPTH) return;
    const inner = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    const next = new Set(seen).add(id);
    kids.forEach((k, i) => {
      walk(k, inner, i === kids.length - 1 ? '└─ ' : '├─ ', next, depth + 1);
    });
  };
  for (const g of goals) walk(g, '', '', new Set(), 0);
  if (goals.length === 0)
    lines.push({ text: () => cell('  no open goal with dependencies', cols, 'gray-fg', color, false) });
  if (single > 0)
    lines.push({
      text: () =>
        cell(
          `  and ${single} open task${single === 1 ? '' : 's'} nothing waits for, with no dependencies`,
          cols,
          'gray-fg',
          color,
          false,
        ),
    });
  return lines;
}
