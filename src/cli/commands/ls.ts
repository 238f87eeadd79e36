import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import type { Task } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

interface LsFlags extends CommonFlags {
  status?: string;
  kind?: string;
  label?: string;
  all?: boolean;
  limit?: string;
  cursor?: string;
  ready?: boolean;
  blocked?: boolean;
  parent?: string;
  integration?: string;
}

export function taskTable(tasks: Task[]): string {
  if (tasks.length === 0) return 'no tasks';
  const rows = tasks.map((t) => [
    `#${t.id}`,
    // SPEC §11: a queued task still waiting for its blockers shows what it waits for.
    t.state === 'queued' && !t.ready
      ? 'blocked'
      : // SPEC §15: a completed task shows where its commits stand with the target.
        t.state === 'completed' && t.integration && t.integration.state !== 'none'
        ? `completed, ${t.integration.state}`
        : t.state,
    t.kind,
    `p${t.priority}`,
    t.claimed_by ?? (t.for ? `for ${t.for}` : ''),
    (t.title.length > 60 ? `${t.title.slice(0, 59)}…` : t.title) +
      (t.blocked.length
        ? ` (waits for ${t.blocked.map((b) => (b.integration ? `#${b.id}, waiting for merge` : `#${b.id}`)).join(' ')})`
        : ''),
  ]);
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

export function registerLs(program: Command): void {
  withCommon(
    program
      .command('ls')
      .description('List tasks on the board, newest first (only those visible to you)')
      .option('--status <state>', 'queued, claimed, completed, failed, cancelled or expired')
      .option('--kind <kind>', 'only this kind')
      .option('--label <label>', 'only tasks with this label')
      .option('--all', 'operator view: every task, private ones included')
      .option('--limit <n>', 'at most this many (default 100, max 500)')
      .option('--cursor <cursor>', 'continue from a previous page')
      .option(
        '--ready',
        'only queued tasks whose blockers all landed: merged, or completed with no commits (what claim takes next)',
      )
      .option('--blocked', 'only queued tasks still waiting for a blocker')
      .option('--parent <id>', 'only the children of this task')
      .option(
        '--integration <state>',
        'only tasks whose integration is none, pending, awaiting_review, merged, conflict, check_failed or blocked',
      ),
  ).action(
    action(async (flags: LsFlags) => {
      const inv = resolveInvocation(flags);
      const query = parseInput(operations.listTasks, {
        board: inv.board,
        state: flags.status,
        kind: flags.kind,
        label: flags.label,
        agent: flags.all ? undefined : inv.agent,
        limit: flags.limit,
        cursor: flags.cursor,
        ready: flags.ready,
        blocked: flags.blocked,
        parent: flags.parent,
        integration: flags.integration,
      });
      const res = await inv.client.call(operations.listTasks, query);
      // Private tasks of others (a conflict's follow-up is its agent's) are hidden without --all: say how many.
      let hidden = 0;
      if (!flags.all && !flags.json && !flags.cursor && !res.next_cursor) {
        const every = await inv.client.call(operations.listTasks, { ...query, agent: undefined, limit: 500 });
        hidden = every.next_cursor ? 0 : every.tasks.length - res.tasks.length;
      }
      emit(flags, res, () =>
        [
          taskTable(res.tasks),
          res.next_cursor ? `more: coord ls --cursor ${res.next_cursor}` : '',
          hidden > 0
            ? `${hidden} more ${hidden === 1 ? 'task is' : 'tasks are'} private to other agents: coord ls --all`
            : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }),
  );
}
