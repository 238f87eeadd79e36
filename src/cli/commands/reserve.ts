/** SPEC §14: `coord reserve port [--range 3000-3999]` — a free port, locked in one step. */
import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { clockTime, emit } from '../output.js';

export function registerReserve(program: Command): void {
  withCommon(
    program
      .command('reserve')
      .description(
        'Lock a free resource of the machine in one step: the lowest port no lock holds and nothing listens on',
      )
      .argument('<kind>', 'what to reserve: port')
      .option('--range <from-to>', 'ports to choose from (default 3000-3999)')
      .option('--lease <seconds>', 'lease length (default 300); renew before it ends'),
  ).action(
    action(async (kind: string, flags: CommonFlags & { range?: string; lease?: string }) => {
      if (kind !== 'port') throw new CliError('invalid_request', `coord reserve knows ports only: coord reserve port`);
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.reservePort, {
        agent: inv.agent,
        board: inv.board,
        range: flags.range,
        lease_s: flags.lease === undefined ? undefined : Number(flags.lease),
      });
      const r = await inv.client.call(operations.reservePort, input);
      emit(flags, r, () =>
        [
          `${r.port}`,
          `(locked as port:${r.port} · lock ${r.lock_id} · lease until ${clockTime(r.lease_until)} UTC — coord unlock ${r.lock_id} when done)`,
        ].join('\n'),
      );
    }),
  );
}
