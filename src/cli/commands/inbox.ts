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

/**
 * The inbox text is the models' (they pass its cursor back as `since`); a person reads no internal word (issue
 * 32): the header's `· cursor N` becomes the command that shows only what changes after now.
 */
export const forAPerson = (text: string): string =>
  text.replace(/^(.*?) · cursor (\d+)$/m, '$1 (what changes from here: coord inbox --since $2)');

export function registerInbox(program: Command): void {
  withCommon(
    program
      .command('inbox')
      .description('Your claims, then the tasks you may claim — the compact view an agent reads')
      .option('--since <n>', 'only what changed after this point (the number an earlier inbox named)'),
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
      process.stdout.write(`${terminalText(forAPerson(await inv.client.callText(INBOX, query)))}\n`);
    }),
  );
}
