import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { clockTime, emit } from '../output.js';
import { cwdTree, repoRelative } from './lock-paths.js';

interface ClaimFlags extends CommonFlags {
  lease?: string;
  wait?: string;
  kind?: string[];
  label?: string[];
  files?: string[];
}

const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

export function registerClaim(program: Command): void {
  withCommon(
    program
      .command('claim')
      .description('Claim a task by id, or the next one you may take (priority, then age)')
      .argument('[id]', 'task id; omit to claim the next queued task')
      .option('--lease <seconds>', 'lease length (default 300); heartbeat before it ends')
      .option('--wait <seconds>', 'with no id: wait up to this long (0–60) for a task to appear')
      .option('--kind <kind...>', 'with no id: only these kinds')
      .option('--label <label...>', 'with no id: only tasks with one of these labels')
      .option('--files <path...>', 'with a task id: lock these files together with the claim'),
  ).action(
    action(async (id: string | undefined, flags: ClaimFlags) => {
      const inv = resolveInvocation(flags);
      const lease_s = num(flags.lease);
      // Claim-next takes no files (SPEC §4): refuse rather than claim without the lock that was asked for.
      if (!id && flags.files)
        throw new CliError('invalid_request', '--files needs a task id: coord claim ID --files ...');
      const g = id
        ? await inv.client.call(
            operations.claimTask,
            parseInput(operations.claimTask, {
              task_id: id,
              agent: inv.agent,
              lease_s,
              ...(flags.files ? { files: repoRelative(flags.files, process.cwd()) } : {}),
              ...cwdTree(),
            }),
          )
        : await inv.client.call(
            operations.claimNext,
            parseInput(operations.claimNext, {
              agent: inv.agent,
              board: inv.board,
              lease_s,
              wait_s: num(flags.wait),
              kinds: flags.kind,
              labels: flags.label,
              ...cwdTree(),
            }),
          );
      if (!g) {
        emit(flags, { task: null }, () => 'nothing to claim right now');
        return;
      }
      emit(flags, g, () =>
        [
          `${g.reclaimed ? 'already yours' : 'claimed'} #${g.task.id}: ${g.task.title}`,
          `claim_id ${g.claim_id} · fence ${g.fence} · lease until ${clockTime(g.lease_until)} UTC`,
          ...(g.lock ? [`locked ${g.lock.resources.join(' ')} until the claim ends (lock ${g.lock.lock_id})`] : []),
          // SPEC §14: an earlier claim left work in its work tree — the next claimant hears of it first.
          ...(g.work_left ? [g.work_left] : []),
          `next: coord heartbeat ${g.task.id} --claim ${g.claim_id}   |   coord submit ${g.task.id} --claim ${g.claim_id} --ok`,
        ].join('\n'),
      );
    }),
  );
}
