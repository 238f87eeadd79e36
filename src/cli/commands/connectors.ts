/** `coord connect` and `coord connectors [revoke ID]` (SPEC §16): the owner's side of remote connectors. */
import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { ago } from './who.js';

type Connector = Awaited<ReturnType<typeof operations.listConnectors.run>>['connectors'][number];

export function connectorTable(list: Connector[], now: number): string {
  if (list.length === 0) return 'no connectors (coord connect prints a code to approve one)';
  const rows = [
    ['ID', 'CLIENT', 'AGENT', 'BOARD', 'CREATED', 'LAST USE'],
    ...list.map((c) => [
      c.id,
      c.client,
      c.agent,
      c.board,
      ago(c.created_at, now),
      c.last_used_at ? ago(c.last_used_at, now) : 'never',
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

export function registerConnectors(program: Command): void {
  withCommon(
    program
      .command('connect')
      .description(
        'Print a one-time code (10 minutes) that approves one chat host (claude.ai, ChatGPT) as a connector',
      ),
  ).action(
    action(async (flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.connect, { board: inv.board, agent: flags.agent });
      const res = await inv.client.call(operations.connect, input);
      emit(flags, res, () =>
        [
          `connector URL: ${res.url}`,
          `one-time code: ${res.code}   (valid until ${res.expires_at}, once)`,
          `Add the URL as a custom connector in the chat host; on coord's consent page enter the code.`,
        ].join('\n'),
      );
    }),
  );
  const connectors = withCommon(
    program.command('connectors').description('Remote connectors: client, agent, board, created, last use'),
    { agent: false, board: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const res = await inv.client.call(operations.listConnectors, parseInput(operations.listConnectors, {}));
      emit(flags, res, () => connectorTable(res.connectors, Date.now()));
    }),
  );
  withCommon(
    connectors
      .command('revoke <id>')
      .description('End a connector now (its next call is refused); --client deletes its registration too')
      .option('--client', "also delete the client's registration (it must register again)"),
    { agent: false, board: false },
  ).action(
    action(async (id: string, own: CommonFlags & { client?: boolean }, cmd: Command) => {
      // `--state`/`--json` may be read by `connectors` itself (it has them too): take both commands' flags.
      const flags = { ...cmd.optsWithGlobals(), ...own } as CommonFlags & { client?: boolean };
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.revokeConnector, { id, client: flags.client === true });
      const res = await inv.client.call(operations.revokeConnector, input);
      emit(flags, res, () => `revoked ${res.connector.id} (${res.connector.agent} on ${res.connector.board})`);
    }),
  );
}
