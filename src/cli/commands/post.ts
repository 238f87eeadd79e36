import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

interface PostFlags extends CommonFlags {
  body?: string;
  kind?: string;
  priority?: string;
  label?: string[];
  for?: string;
  ttl?: string;
  key?: string;
  after?: string[];
  parent?: string;
}

const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

export function registerPost(program: Command): void {
  withCommon(
    program
      .command('post')
      .description('Post a task to the board')
      .argument('<title>', 'one line saying what needs doing')
      .option('--body <text>', 'details, context, acceptance criteria')
      .option('--kind <kind>', 'task (default), bug, review, handoff, note...')
      .option('--priority <n>', 'lower runs first (default 0)')
      .option('--label <label...>', 'labels (repeatable)')
      .option('--for <agent>', 'make it private to this agent')
      .option('--ttl <seconds>', 'expire after this many seconds (default 86400)')
      .option('--key <idempotency-key>', 'posting again with the same key returns the same task')
      .option('--after <id...>', 'claimable only once these tasks completed (blocked_by)')
      .option('--parent <id>', 'a task of this board this one is part of'),
  ).action(
    action(async (title: string, flags: PostFlags) => {
      const inv = resolveInvocation(flags);
      const body = parseInput(operations.createTask, {
        title,
        body: flags.body,
        kind: flags.kind,
        priority: num(flags.priority),
        labels: flags.label,
        for: flags.for,
        ttl_s: num(flags.ttl),
        idempotency_key: flags.key,
        blocked_by: flags.after,
        parent: flags.parent,
        board: inv.board,
        agent: inv.agent,
      });
      const res = await inv.client.call(operations.createTask, body);
      const t = res.task;
      emit(flags, res, () =>
        res.created
          ? `posted #${t.id} on ${t.board}: ${t.title}${t.ready ? '' : `\nwaits for ${t.blocked.map((b) => `#${b.id} (${b.state})`).join(', ')}`}`
          : `already posted as #${t.id} (same idempotency key and payload): ${t.title}`,
      );
    }),
  );
}
