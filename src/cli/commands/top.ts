import type { Command } from 'commander';
import { followEvents } from '../../client/event-stream.js';
import type { CoordEvent } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { terminalText } from '../terminal-text.js';
import { eventLine } from './events.js';

interface TopFlags extends CommonFlags {
  allBoards?: boolean;
}

/** Recent events printed before the live ones when stdout is not a terminal. */
const PLAIN_HISTORY = 20;

export function registerTop(program: Command): void {
  withCommon(
    program
      .command('top')
      .description(
        'The board live in the terminal: tasks by state, holders and lease countdowns, agents, locks, events (q quits)',
      )
      .option('--all-boards', 'start with every board, not only this one'),
  ).action(
    action(async (flags: TopFlags) => {
      const inv = resolveInvocation(flags);
      const board = flags.allBoards ? '' : inv.board;
      if (!process.stdout.isTTY || flags.json) {
        // Not a terminal (a pipe, a file, a log): one plain line per event, recent ones first.
        const recent = await inv.client.call(operations.listEvents, {
          board: board || undefined,
          tail: true,
          limit: PLAIN_HISTORY,
        });
        const print = (e: CoordEvent) =>
          process.stdout.write(`${flags.json ? JSON.stringify(e) : terminalText(eventLine(e, board === ''))}\n`);
        for (const e of recent.events) print(e);
        await followEvents({
          stateDir: inv.stateDir,
          board: board || undefined,
          since: recent.next_since,
          onEvent: print,
          onDrop: () => process.stderr.write('coord: event stream lost — reconnecting\n'),
        });
      }
      // The UI library is loaded here and only here: no other command (nor `coord mcp`) pays for it.
      const { runTop } = await import('../top/app.js');
      await runTop({
        client: inv.client,
        stateDir: inv.stateDir,
        board,
        agent: inv.agent,
        color: !process.env.NO_COLOR && process.env.TERM !== 'dumb',
      });
    }),
  );
}
