/**
 * SPEC §19: `coord status` — the state directory's daemon (pid, URL, version, store, durability), the board,
 * its tasks by state, the agents at work and how many things wait on a person; `coord stop` ends that daemon
 * cleanly (SIGTERM: it closes its store and removes daemon.json) and waits until it has. Neither starts one:
 * with none running both say so and exit 3.
 */
import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { operations } from '../../core/operations.js';
import { readDaemonInfo } from '../../state-dir/daemon-info.js';
import { liveDaemonUrl } from '../../state-dir/daemon-live.js';
import { resolveStateDir } from '../../state-dir/state-dir.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

const STATES = ['queued', 'claimed', 'completed', 'failed', 'cancelled', 'expired'] as const;
/** Counted up to this many per state (one page); more shows as `N+`. */
const PAGE = 500;

const noDaemon = (stateDir: string) =>
  new CliError('unreachable', `no coord daemon runs for ${stateDir} (start one with: coord serve --state ${stateDir})`);

export function registerStatus(program: Command): void {
  withCommon(
    program
      .command('status')
      .description(
        "The daemon of this state directory (pid, URL, version, store), the board's tasks by state, agents at work, what waits on you",
      ),
    { agent: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const stateDir = resolveStateDir(flags.state, process.env);
      if (!(await liveDaemonUrl(stateDir))) throw noDaemon(stateDir);
      const inv = resolveInvocation(flags);
      const health = (await inv.client.health()) as { version: string; store: string; durability?: string };
      const counts: Record<string, number | string> = {};
      await Promise.all(
        STATES.map(async (state) => {
          const page = await inv.client.call(operations.listTasks, { board: inv.board, state, limit: PAGE });
          counts[state] = page.next_cursor ? `${page.tasks.length}+` : page.tasks.length;
        }),
      );
      const [{ agents }, { items }] = await Promise.all([
        inv.client.call(operations.listAgents, { board: inv.board }),
        inv.client.call(operations.listAttention, { board: inv.board }),
      ]);
      const working = agents.filter((a) => a.claims.length > 0).map((a) => ({ name: a.name, claims: a.claims }));
      const status = {
        daemon: {
          pid: readDaemonInfo(stateDir)?.pid ?? null,
          url: inv.client.url,
          version: health.version,
          store: health.store,
          durability: health.durability ?? null,
          state: stateDir,
        },
        board: inv.board,
        tasks: counts,
        agents: working,
        attention: items.length,
      };
      emit(flags, status, () =>
        [
          `daemon   pid ${status.daemon.pid ?? '?'} · ${status.daemon.url} · coord ${status.daemon.version} · ${status.daemon.store}${status.daemon.durability ? ` (durability ${status.daemon.durability})` : ''}`,
          `state    ${stateDir}`,
          `board    ${inv.board}`,
          `tasks    ${STATES.map((s) => `${counts[s]} ${s}`).join(' · ')}`,
          `agents   ${working.length === 0 ? 'none at work' : working.map((a) => `${a.name} (${a.claims.map((c) => `#${c}`).join(' ')})`).join(', ')}`,
          `needs you ${items.length === 0 ? 'nothing' : `${items.length} — coord attention`}`,
        ].join('\n'),
      );
    }),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function registerStop(program: Command): void {
  withCommon(
    program.command('stop').description('Stop the daemon of this state directory cleanly (exit 3 when none runs)'),
    { agent: false, board: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const stateDir = resolveStateDir(flags.state, process.env);
      // Only the process that holds the state directory's lock (liveDaemonUrl's proof), never a pid reused since.
      const url = await liveDaemonUrl(stateDir);
      const pid = url ? readDaemonInfo(stateDir)?.pid : undefined;
      if (!url || !pid) throw noDaemon(stateDir);
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 60_000;
      while (alive(pid) && (await liveDaemonUrl(stateDir)) === url) {
        if (Date.now() > deadline)
          throw new CliError('store_unavailable', `the daemon (pid ${pid}) has not stopped after 60 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
      emit(flags, { stopped: true, pid, url }, () => `stopped the coord daemon (pid ${pid}) at ${url}`);
    }),
  );
}
