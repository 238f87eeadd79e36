import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { terminalText } from '../terminal-text.js';

export function registerInbox(program: Command): void {
  withCommon(
    program
      .command('inbox')
      .description('Your claims, then the tasks you may claim — the compact view an agent reads')
      .option('--since <cursor>', 'only what changed after this cursor'),
  ).action(
    action(async (flags: CommonFlags & { since?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.inbox, { agent: inv.agent, board: inv.board, since: flags.since });
      const query = { agent: input.agent, board: input.board, since: input.since };
      if (flags.json) {
        emit(flags, await inv.client.call(operations.inbox, query), () => '');
        return;
      }
      process.stdout.write(`${terminalText(await inv.client.callText(operations.inbox, query))}\n`);
    }),
  );
}
