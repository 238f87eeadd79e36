/**
 * `coord inbox`: the command an agent runs most, so it loads only what it uses (issue 26) — it names its
 * operation without loading it (`OpRef`: no operations table, no zod); the daemon parses the input, and its
 * answer to a bad name is printed like any other error.
 */
import type { Command } from 'commander';
import type { OpRef } from '../../client/call.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { terminalText } from '../terminal-text.js';

const INBOX: OpRef<'inbox'> = { name: 'inbox' };

export function registerInbox(program: Command): void {
  withCommon(
    program
      .command('inbox')
      .description('Your claims, then the tasks you may claim — the compact view an agent reads')
      .option('--since <cursor>', 'only what changed after this cursor'),
  ).action(
    action(async (flags: CommonFlags & { since?: string }) => {
      const inv = resolveInvocation(flags);
      const query = {
        agent: inv.agent,
        board: inv.board,
        ...(flags.since === undefined ? {} : { since: flags.since }),
      };
      if (flags.json) {
        emit(flags, await inv.client.call(INBOX, query), () => '');
        return;
      }
      process.stdout.write(`${terminalText(await inv.client.callText(INBOX, query))}\n`);
    }),
  );
}
