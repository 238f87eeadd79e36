import type { Command } from 'commander';
import { followEvents } from '../../client/event-stream.js';
import { eventText } from '../../core/events.js';
import { parseInput } from '../../core/invoke.js';
import type { CoordEvent } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { clockTime, emit } from '../output.js';
import { terminalText } from '../terminal-text.js';

interface EventsFlags extends CommonFlags {
  since?: string;
  follow?: boolean;
  limit?: string;
  allBoards?: boolean;
  fromStart?: boolean;
}

export function eventLine(e: CoordEvent, withBoard: boolean): string {
  const subject = e.task_id ? `#${e.task_id}` : (e.lock_id ?? '');
  return [
    String(e.seq).padStart(6),
    clockTime(e.at),
    e.type.padEnd(14),
    subject.padEnd(9),
    (e.agent ?? '-').padEnd(12),
    eventText(e),
    withBoard ? `[${e.board}]` : '',
  ]
    .filter(Boolean)
    .join('  ')
    .trimEnd();
}

export function registerEvents(program: Command): void {
  withCommon(
    program
      .command('events')
      .description(
        'The audit trail of the board, newest last: the latest page, or --from-start; --follow prints new events as they happen',
      )
      .option(
        '--since <seq>',
        'only events after this sequence number (default: the latest page; with --follow: from now)',
      )
      .option('--from-start', 'the whole trail from its first event, a page at a time')
      .option('--follow', 'keep streaming new events (Server-Sent Events) until Ctrl-C; resumes after a daemon restart')
      .option('--limit <n>', 'without --follow: at most this many events (default 100, max 1000)')
      .option('--all-boards', 'events of every board, not only this one'),
    { agent: false },
  ).action(
    action(async (flags: EventsFlags) => {
      const inv = resolveInvocation(flags);
      const board = flags.allBoards ? undefined : inv.board;
      const input = parseInput(operations.listEvents, { board, since: flags.since, limit: flags.limit ?? 100 });
      if (flags.follow) {
        let dropped = false;
        await followEvents({
          stateDir: inv.stateDir,
          board,
          since: input.since,
          onEvent: (e) => {
            dropped = false;
            process.stdout.write(
              `${flags.json ? JSON.stringify(e) : terminalText(eventLine(e, board === undefined))}\n`,
            );
          },
          onDrop: () => {
            if (!dropped) process.stderr.write('coord: event stream lost — reconnecting\n');
            dropped = true;
          },
        });
      }
      // A person asks what happened lately: the latest page, newest last (issue 32), unless asked from a point.
      const latest = flags.since === undefined && !flags.fromStart;
      const res = await inv.client.call(operations.listEvents, {
        board,
        since: input.since,
        limit: input.limit,
        ...(latest ? { tail: true } : {}),
      });
      const { events, next_since } = res;
      emit(flags, res, () => {
        if (events.length === 0) return 'no events';
        const lines = events.map((e) => eventLine(e, board === undefined));
        if (latest && events.length === input.limit)
          lines.unshift(`(the latest ${events.length} events; the whole trail: coord events --from-start)`);
        else if (!latest && events.length === input.limit) lines.push(`more: coord events --since ${next_since}`);
        return lines.join('\n');
      });
    }),
  );
}
