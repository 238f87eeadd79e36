import type { Command } from 'commander';
import { blockerText } from '../../core/board/blockers.js';
import { integrationLine } from '../../core/integration/integration.js';
import { parseInput } from '../../core/invoke.js';
import type { Task } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { changeLines } from '../../core/worktrees/change-text.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

export function describeTask(t: Task): string {
  const lines = [
    `#${t.id}  ${t.title}`,
    stateLine(t),
    `kind ${t.kind} · priority ${t.priority} · attempts ${t.attempts} · board ${t.board}`,
    `posted by ${t.created_by} at ${t.created_at}${t.for ? ` · for ${t.for}` : ''} · expires ${t.expires_at}`,
  ];
  if (t.labels.length) lines.push(`labels ${t.labels.join(', ')}`);
  // SPEC §11: a blocker counts once landed — completed and, where it has commits, merged.
  if (t.blocked.length) lines.push(`blocked by ${t.blocked.map(blockerText).join(', ')}`);
  else if (t.blocked_by.length) lines.push(`after ${t.blocked_by.map((id) => `#${id}`).join(', ')} (all landed)`);
  if (t.parent) lines.push(`parent #${t.parent}`);
  if (t.children) lines.push(`children ${t.children.completed}/${t.children.total} completed`);
  if (t.body) lines.push('', t.body);
  if (t.result_status) lines.push('', `result (${t.result_status}): ${JSON.stringify(t.result)}`);
  if (t.change) lines.push(...changeLines(t.change));
  const integration = t.integration ? integrationLine(t.id, t.integration) : null;
  if (integration) lines.push(`integration: ${integration}`);
  // SPEC §18 "Budgets": what its supervised runs used, summed over tries.
  if (t.usage) lines.push(usageLine(t.usage));
  lines.push(...notesLines(t));
  return lines.join('\n');
}

const stateLine = (t: Task): string =>
  `state ${t.state}${t.claimed_by ? ` · ${t.state === 'claimed' ? 'held' : 'last held'} by ${t.claimed_by}` : ''}${t.lease_until ? ` until ${t.lease_until}` : ''}`;

function usageLine(u: NonNullable<Task['usage']>): string {
  const cost = u.cost_usd === undefined ? '' : ` · $${u.cost_usd.toFixed(2)}`;
  return `usage ${u.input_tokens} in + ${u.output_tokens} out tokens${cost} · ${u.wall_s} s wall`;
}

/** The last notes, with how many there are in all. */
function notesLines(t: Task): string[] {
  if (!t.notes?.length) return [];
  const head = `notes (${t.notes_count}${(t.notes_count ?? 0) > t.notes.length ? `, last ${t.notes.length}` : ''}):`;
  return ['', head, ...t.notes.map((n) => `  ${n.at} ${n.agent}: ${n.text.replace(/\n/g, '\n    ')}`)];
}

export function registerShow(program: Command): void {
  withCommon(program.command('show').description('Show one task').argument('<id>', 'task id'), { board: false }).action(
    action(async (id: string, flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.showTask, { task_id: id, agent: inv.agent });
      const res = await inv.client.call(operations.showTask, input);
      emit(flags, res, () => describeTask(res.task));
    }),
  );
}
