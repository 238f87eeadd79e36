/**
 * `coord top`'s work-trees pane (what `coord changes` says: each work tree's branch, ahead/behind the
 * target, who works there, its pending paths, and the overlaps) and attention pane (SPEC §19: what waits
 * on a person, most urgent first, each with the command that resolves it). Pure functions of what the feed
 * read, so every line's width can be tested.
 */
import type { z } from 'zod';
import type { AttentionItem } from '../../core/attention/attention.js';
import type { ChangesOutput } from '../../core/worktrees/change-schemas.js';
import { ago } from '../commands/who.js';
import { cell } from './cells.js';
import type { ListLine } from './panes.js';

export type BoardChanges = z.output<typeof ChangesOutput> & { board: string };

/** What the work-trees feed knows: each board's changes, or why there are none. */
export interface TreesView {
  boards: BoardChanges[];
  /** Why a board shows nothing (no repository known yet, no git): one line each. */
  notes: string[];
  loading: boolean;
}

const SHOWN_PATHS = 6;
const base = (path: string): string => path.split('/').pop() ?? path;
const line = (text: string, cols: number, style: string | undefined, color: boolean): ListLine => ({
  text: () => cell(text, cols, style, color, false),
});

function treeLines(b: BoardChanges, cols: number, color: boolean, withBoard: boolean): ListLine[] {
  const out: ListLine[] = [line(`target ${b.target}${withBoard ? `  [${b.board}]` : ''}`, cols, 'bold', color)];
  for (const t of b.worktrees) {
    const who = t.agents.length ? ` · ${t.agents.join(', ')}` : '';
    const claims = t.tasks.length ? ` (${t.tasks.map((id) => `#${id}`).join(' ')})` : '';
    out.push({
      text: () =>
        cell(
          `${base(t.path)} [${t.branch ?? `detached ${t.head?.slice(0, 7) ?? ''}`}] ↑${t.ahead} ↓${t.behind}${who}${claims}`,
          cols,
          t.pending_count ? 'yellow-fg' : undefined,
          color,
          false,
        ),
    });
    if (t.pending_count) {
      const more = t.pending_count - Math.min(SHOWN_PATHS, t.pending.length);
      const paths = t.pending.slice(0, SHOWN_PATHS).join(' ');
      out.push(line(`  ${t.pending_count} pending: ${paths}${more > 0 ? ` … +${more}` : ''}`, cols, 'gray-fg', color));
    }
  }
  for (const o of b.overlaps)
    out.push(line(`overlap ${o.path} in ${o.worktrees.map(base).join(', ')}`, cols, 'red-fg', color));
  return out;
}

export function treesLines(v: TreesView, cols: number, color: boolean, allBoards: boolean): ListLine[] {
  const trees = v.boards.reduce((n, b) => n + b.worktrees.length, 0);
  const overlaps = v.boards.reduce((n, b) => n + b.overlaps.length, 0);
  const lines: ListLine[] = [
    line(
      `WORK TREES ${trees}${overlaps ? ` · ${overlaps} overlapping path${overlaps === 1 ? '' : 's'}` : ''}`,
      cols,
      'bold',
      color,
    ),
  ];
  for (const b of v.boards) lines.push(...treeLines(b, cols, color, allBoards));
  for (const n of v.notes) lines.push(line(`  ${n}`, cols, 'gray-fg', color));
  if (v.loading && v.boards.length === 0) lines.push(line('  reading the work trees…', cols, 'gray-fg', color));
  else if (v.boards.length === 0 && v.notes.length === 0)
    lines.push(line('  no board seen yet', cols, 'gray-fg', color));
  return lines;
}

const KIND_STYLE: Partial<Record<AttentionItem['kind'], string>> = {
  agent_waiting: 'red-fg',
  budget_spent: 'red-fg',
  target_dirty: 'red-fg',
  conflict: 'red-fg',
  check_failed: 'red-fg',
  review: 'yellow-fg',
};

/** Each item as `coord attention` says it: what, then why and since when, then → the command. */
export function attentionLines(items: AttentionItem[], cols: number, now: number, color: boolean): ListLine[] {
  const lines: ListLine[] = [
    line(items.length ? `NEEDS YOU ${items.length}` : 'nothing waits on you', cols, 'bold', color),
  ];
  const w = String(items.length).length;
  const pad = ' '.repeat(w + 2);
  items.forEach((it, i) => {
    // The task on the first line only: moving the selection goes item by item.
    lines.push({
      text: () => cell(`${String(i + 1).padStart(w)}. ${it.what}`, cols, KIND_STYLE[it.kind] ?? 'bold', color, false),
      ...(it.task_id ? { taskId: it.task_id } : {}),
    });
    lines.push(line(`${pad}${it.why} (since ${ago(it.since, now)})`, cols, undefined, color));
    lines.push(line(`${pad}→ ${it.command}`, cols, 'cyan-fg', color));
  });
  return lines;
}
