import type { Command } from 'commander';
import type { AttentionItem } from '../../core/attention/attention.js';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { ago } from './who.js';

/** SPEC §19 as a person reads it: each item's what, then why and since when, then the command to run. */
export function attentionText(items: AttentionItem[], now: number): string {
  if (items.length === 0) return 'nothing waits on you';
  const head = items.length === 1 ? '1 thing waits on you:' : `${items.length} things wait on you:`;
  const width = String(items.length).length;
  const lines = items.flatMap((it, i) => {
    const pad = ' '.repeat(width + 2);
    return [
      `${String(i + 1).padStart(width)}. ${it.what}`,
      `${pad}${it.why} (since ${ago(it.since, now)})`,
      `${pad}→ ${it.command}`,
    ];
  });
  return [head, ...lines].join('\n');
}

export function registerAttention(program: Command): void {
  withCommon(
    program
      .command('attention')
      .description(
        'What waits on a person, most urgent first: reviews, conflicts, failed checks and tasks, waiting or idle agents, old holds — each with the command that resolves it',
      ),
    { agent: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.listAttention, { board: inv.board });
      const res = await inv.client.call(operations.listAttention, input);
      emit(flags, res, () => attentionText(res.items, Date.now()));
    }),
  );
}
