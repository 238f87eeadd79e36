import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CoordError } from '../../core/errors.js';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { parsePlanFile } from '../plan-file.js';

function readPlan(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new CoordError('invalid_request', `cannot read ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parsePlanFile(text);
  } catch (e) {
    throw new CoordError(
      'invalid_request',
      `${file} is neither JSON nor the YAML coord reads: ${(e as Error).message}`,
    );
  }
  // A bare list of tasks is a plan too.
  if (Array.isArray(parsed)) return { tasks: parsed };
  if (parsed === null || typeof parsed !== 'object') {
    throw new CoordError('invalid_request', `${file} must hold a plan: {tasks: [...]} or a list of tasks`);
  }
  return parsed as Record<string, unknown>;
}

const tasks = (n: number) => `${n} task${n === 1 ? '' : 's'}`;

export function registerPlan(program: Command): void {
  withCommon(
    program
      .command('plan')
      .description(
        'Post a plan: many tasks with refs and blocked_by edges, in one transaction (JSON or YAML; - for stdin)',
      )
      .argument('<file>', 'the plan file: {tasks: [{ref, title, blocked_by: [ref…]}, …], idempotency_key?}')
      .option('--key <idempotency-key>', 'posting again with the same key returns the same plan'),
  ).action(
    action(async (file: string, flags: CommonFlags & { key?: string }) => {
      const inv = resolveInvocation(flags);
      const plan = readPlan(file);
      const body = parseInput(operations.postPlan, {
        ...plan,
        ...(flags.key ? { idempotency_key: flags.key } : {}),
        board: plan.board ?? inv.board,
        agent: inv.agent,
      });
      const res = await inv.client.call(operations.postPlan, body);
      emit(flags, res, () => {
        const all = Object.entries(res.tasks);
        const head = res.created
          ? `posted ${tasks(all.length)}: ${all.filter(([, t]) => t.ready).length} ready`
          : `already posted (same idempotency key and plan): ${tasks(all.length)}`;
        const width = Math.max(...all.map(([ref]) => ref.length));
        const rows = all.map(
          ([ref, t]) =>
            `${ref.padEnd(width)}  #${t.id}  ${t.ready ? 'ready' : t.blocked.length ? `after ${t.blocked.map((b) => `#${b.id}`).join(' ')}` : t.state}`,
        );
        return [head, ...rows].join('\n');
      });
    }),
  );
}
