/**
 * `coord tree [ID]` (SPEC §11): what waits for what, drawn. With an id, that
 * task and everything it waits for; without, every open task of the board
 * that no other open task waits for, each with what it waits for.
 */
import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { isTerminal, type Task } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, type Invocation, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

const MAX_PAGES = 20;

async function boardTasks(client: Invocation['client'], board: string, agent: string): Promise<Map<string, Task>> {
  const all = new Map<string, Task>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = parseInput(operations.listTasks, { board, agent, limit: 500, cursor });
    const res = await client.call(operations.listTasks, query);
    for (const t of res.tasks) all.set(t.id, t);
    if (!res.next_cursor) break;
    cursor = res.next_cursor;
  }
  return all;
}

function label(t: Task): string {
  // SPEC §11: ready only once every blocker landed; a completed step shows where its commits stand.
  const state =
    t.state === 'queued'
      ? t.ready
        ? 'ready'
        : t.blocked.length > 0 && t.blocked.every((b) => b.integration)
          ? 'blocked · waiting for merge'
          : 'blocked'
      : t.state === 'claimed'
        ? `claimed by ${t.claimed_by}`
        : t.state === 'completed' && t.integration && t.integration.state !== 'none'
          ? `completed · ${t.integration.state.replace('_', ' ')}`
          : t.state;
  const title = t.title.length > 60 ? `${t.title.slice(0, 59)}…` : t.title;
  return `#${t.id} [${state}] ${title}`;
}

/** Draws `root` and, below it, what it waits for; a task met twice is drawn once and then named. */
export function drawTree(roots: string[], tasks: ReadonlyMap<string, Task>): string {
  const lines: string[] = [];
  const drawn = new Set<string>();
  const walk = (id: string, prefix: string, last: boolean, top: boolean) => {
    const t = tasks.get(id);
    const branch = top ? '' : last ? '└─ ' : '├─ ';
    const text = t ? label(t) : `#${id} (not visible)`;
    if (drawn.has(id) && t && t.blocked_by.length > 0) {
      lines.push(`${prefix}${branch}${text} (see above)`);
      return;
    }
    lines.push(`${prefix}${branch}${text}`);
    drawn.add(id);
    const kids = t?.blocked_by ?? [];
    const inner = top ? prefix : `${prefix}${last ? '   ' : '│  '}`;
    kids.forEach((k, i) => {
      walk(k, inner, i === kids.length - 1, false);
    });
  };
  for (const r of roots) walk(r, '', true, true);
  return lines.join('\n');
}

export function registerTree(program: Command): void {
  withCommon(
    program
      .command('tree')
      .description(
        'Draw the dependency tree: a task and what it waits for (without an id: every open goal of the board)',
      )
      .argument('[id]', 'task id')
      .option('--all', 'every goal, finished ones too (a plan that has landed)'),
  ).action(
    action(async (id: string | undefined, flags: CommonFlags & { all?: boolean }) => {
      const inv = resolveInvocation(flags);
      const tasks = await boardTasks(inv.client, inv.board, inv.agent);
      let roots: string[];
      if (id !== undefined) {
        const input = parseInput(operations.showTask, { task_id: id, agent: inv.agent });
        const res = await inv.client.call(operations.showTask, input);
        tasks.set(res.task.id, res.task);
        roots = [res.task.id];
      } else {
        const open = [...tasks.values()].filter((t) => flags.all || !isTerminal(t.state));
        const waitedFor = new Set(open.flatMap((t) => t.blocked_by));
        roots = open
          .filter((t) => !waitedFor.has(t.id))
          .sort((a, b) => a.created_at.localeCompare(b.created_at))
          .map((t) => t.id);
      }
      emit(flags, { roots, tasks: Object.fromEntries(tasks) }, () => {
        if (roots.length > 0) return drawTree(roots, tasks);
        if (flags.all || tasks.size === 0) return 'no tasks on this board';
        // A plan that has landed is not gone: say where it is (issue 32).
        return `no open tasks — ${tasks.size} finished ${tasks.size === 1 ? 'task' : 'tasks'}: coord tree --all`;
      });
    }),
  );
}
