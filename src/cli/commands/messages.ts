/** `coord note`, `coord send`, `coord ack`, `coord messages` (SPEC §12). */
import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { messageLine } from '../../core/messages/message-text.js';
import type { Message } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

function receiptLines(m: Message): string[] {
  if (m.receipts.length === 0) return ['  (no recipients: nobody else was known on the board)'];
  const lines = m.receipts.map((r) => {
    const state = r.acked_at
      ? `acked ${r.acked_at}`
      : r.delivered_at
        ? `delivered ${r.delivered_at} via ${r.delivered_via}`
        : 'not delivered yet';
    return `  ${r.agent}: ${state}`;
  });
  const c = m.receipt_counts;
  if (c) lines.push(`  … ${c.recipients} recipients in all: ${c.delivered} delivered, ${c.acked} acknowledged`);
  return lines;
}

export function registerMessages(program: Command): void {
  withCommon(
    program
      .command('note')
      .description('Add a note to a task (anyone who can see it may)')
      .argument('<id>', 'task id')
      .argument('<text>', 'the note')
      .option('--key <idempotency_key>', 'make a retry safe: the same key and text add one note'),
    { board: false },
  ).action(
    action(async (id: string, text: string, flags: CommonFlags & { key?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.addNote, { task_id: id, agent: inv.agent, text, idempotency_key: flags.key });
      const res = await inv.client.call(operations.addNote, input);
      emit(flags, res, () =>
        res.created ? `noted on #${input.task_id}` : `already noted on #${input.task_id} (same key)`,
      );
    }),
  );

  withCommon(
    program
      .command('send')
      .description('Send a message to an agent, or to every agent known on the board with "*"')
      .argument('<agent>', 'the recipient, or "*" (quote it in the shell)')
      .argument('<text>', 'the message (at most 8 KiB)')
      .option('--ack', 'the recipient should acknowledge it (coord ack)')
      .option('--task <id>', 'the task it is about')
      .option('--key <idempotency_key>', 'make a retry safe: the same key and message send one'),
  ).action(
    action(async (to: string, text: string, flags: CommonFlags & { ack?: boolean; task?: string; key?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.sendMessage, {
        agent: inv.agent,
        board: inv.board,
        to,
        text,
        task_id: flags.task,
        ack_required: flags.ack === true ? true : undefined,
        idempotency_key: flags.key,
      });
      const res = await inv.client.call(operations.sendMessage, input);
      const m = res.message;
      // A name never seen on the board is most often a typo: the message waits, but say so.
      const unseen =
        to !== '*' &&
        !flags.json &&
        !(await inv.client.call(operations.listAgents, { board: inv.board })).agents.some((a) => a.name === to);
      emit(flags, res, () =>
        [
          `${res.created ? 'sent' : 'already sent'} ${m.id} to ${m.to}`,
          ...receiptLines(m),
          ...(unseen
            ? [
                `(no agent named ${to} has been seen on board ${inv.board} — check the name with coord who; it waits for them)`,
              ]
            : []),
        ].join('\n'),
      );
    }),
  );

  withCommon(
    program
      .command('ack')
      .description('Acknowledge a message addressed to you')
      .argument('<message_id>', 'e.g. m3k9x2qab'),
    { board: false },
  ).action(
    action(async (id: string, flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.ackMessage, { message_id: id, agent: inv.agent });
      const res = await inv.client.call(operations.ackMessage, input);
      emit(flags, res, () => (res.acked ? `acknowledged ${id}` : `${id} was already acknowledged`));
    }),
  );

  withCommon(
    program
      .command('messages')
      .description('Messages to you (shown = delivered; they stay until acknowledged), or --sent with receipts')
      .option('--sent', 'the messages you sent, with each recipient’s receipt')
      .option('--unacked', 'only messages not acknowledged yet')
      .option('--limit <n>', 'at most this many (default 50)'),
  ).action(
    action(async (flags: CommonFlags & { sent?: boolean; unacked?: boolean; limit?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.listMessages, {
        agent: inv.agent,
        board: inv.board,
        box: flags.sent ? 'sent' : 'inbox',
        unacked: flags.unacked ? true : undefined,
        limit: flags.limit,
      });
      const res = await inv.client.call(operations.listMessages, input);
      const now = Date.now();
      emit(flags, res, () => {
        if (res.messages.length === 0) return 'no messages';
        return res.messages
          .flatMap((m) => {
            const mine = m.receipts.find((r) => r.agent === inv.agent);
            const head = `${messageLine(m, now)}${!flags.sent && mine?.acked_at ? ' (acked)' : ''}`;
            return flags.sent ? [head, ...receiptLines(m)] : [head];
          })
          .join('\n');
      });
    }),
  );
}
