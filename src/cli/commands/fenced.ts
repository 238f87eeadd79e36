/** heartbeat, release and submit: the commands that present a claim_id. */
import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { changeLines } from '../../core/worktrees/change-text.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { clockTime, emit } from '../output.js';
import { cwdTree } from './lock-paths.js';

interface FenceFlags extends CommonFlags {
  claim: string;
  lease?: string;
  to?: string;
  ok?: boolean;
  fail?: boolean;
  result?: string;
  note?: string;
}

export function registerFenced(program: Command): void {
  withCommon(
    program
      .command('heartbeat')
      .description('Extend your lease on a claimed task')
      .argument('<id>', 'task id')
      .requiredOption('--claim <claim_id>', 'the claim_id you got when claiming')
      .option('--lease <seconds>', 'new lease length (default: the one you claimed with)'),
    { board: false, agent: false },
  ).action(
    action(async (id: string, flags: FenceFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.heartbeat, {
        task_id: id,
        claim_id: flags.claim,
        lease_s: flags.lease === undefined ? undefined : Number(flags.lease),
      });
      const res = await inv.client.call(operations.heartbeat, input);
      emit(flags, res, () => `lease on #${input.task_id} extended until ${clockTime(res.lease_until)} UTC`);
    }),
  );

  withCommon(
    program
      .command('release')
      .description('Give a claimed task back to the queue, or hand it off with --to')
      .argument('<id>', 'task id')
      .requiredOption('--claim <claim_id>', 'the claim_id you got when claiming')
      .option('--to <agent>', 'hand off: only this agent may claim it next')
      .option('--note <text>', 'a note on the task for the next agent (what was done, what is left)'),
    { board: false, agent: false },
  ).action(
    action(async (id: string, flags: FenceFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.releaseTask, {
        task_id: id,
        claim_id: flags.claim,
        to: flags.to,
        note: flags.note,
      });
      const res = await inv.client.call(operations.releaseTask, input);
      emit(flags, res, () =>
        input.to ? `handed #${input.task_id} to ${input.to}` : `released #${input.task_id} back to the queue`,
      );
    }),
  );

  withCommon(
    program
      .command('submit')
      .description('Finish a claimed task (retrying the same result is safe)')
      .argument('<id>', 'task id')
      .requiredOption('--claim <claim_id>', 'the claim_id you got when claiming')
      .option('--ok', 'the task is completed')
      .option('--fail', 'the task failed')
      .option('--result <json>', 'a JSON value describing the outcome (default null)')
      .option('--note <text>', 'a note on the task (what was done)')
      .option('--allow-dirty', 'complete even though paths you touched are not committed'),
    { board: false, agent: false },
  ).action(
    action(async (id: string, flags: FenceFlags & { allowDirty?: boolean }) => {
      if (flags.ok === flags.fail)
        throw new CliError('invalid_request', 'say how it went: --ok or --fail (exactly one)');
      let result: unknown = null;
      if (flags.result !== undefined) {
        try {
          result = JSON.parse(flags.result);
        } catch {
          throw new CliError('invalid_json', `--result is not valid JSON (quote strings: --result '"done"')`);
        }
      }
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.submitResult, {
        task_id: id,
        claim_id: flags.claim,
        status: flags.ok ? 'completed' : 'failed',
        result,
        note: flags.note,
        ...(flags.allowDirty ? { allow_dirty: true } : {}),
        ...cwdTree(),
      });
      const res = await inv.client.call(operations.submitResult, input).catch((e: unknown) => {
        // The daemon names the MCP/HTTP field; on the command line it is a flag.
        if (e instanceof CliError && e.code === 'uncommitted_changes') {
          throw new CliError(e.code, e.message.replaceAll('allow_dirty: true', '--allow-dirty'), e.details);
        }
        throw e;
      });
      emit(flags, res, () =>
        [
          `submitted #${input.task_id} as ${input.status}${res.replayed ? ' (replayed: same result as before)' : ''}`,
          ...changeLines(res.task.change),
        ].join('\n'),
      );
    }),
  );
}
