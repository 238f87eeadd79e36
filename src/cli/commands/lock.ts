import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { overlaps } from '../../core/edits/paths.js';
import { parseInput } from '../../core/invoke.js';
import type { Lock } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { shortTree } from '../../core/worktrees/holds.js';
import { findRepoRoot } from '../../state-dir/board-name.js';
import { givenBoard } from '../../state-dir/who.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { clockTime, emit } from '../output.js';
import { cwdTree, repoKeys, repoRelative } from './lock-paths.js';

const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

export function lockTable(locks: Lock[]): string {
  if (locks.length === 0) return 'no locks held';
  const rows = [
    ['LOCK', 'AGENT', 'UNTIL (UTC)', 'TASK', 'WORKTREE', 'RESOURCES'],
    ...locks.map((l) => [
      l.lock_id,
      l.agent,
      // A change hold lasts until its paths are merged (SPEC §14), not until a time.
      l.hold ? 'until merged' : clockTime(l.lease_until),
      l.task_id ? `#${l.task_id}` : '-',
      l.worktree ? shortTree(l.worktree, findRepoRoot(process.cwd())) : '-',
      l.resources.join(' '),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** What `coord unlock` names: a lock by its id, or the locks on the board whose keys meet a path. */
interface Named {
  /** The lock id given, when it is one (listed, or spelt as coord spells lock ids). */
  id: string | null;
  key: string;
  locks: Lock[];
}

const LOCK_ID = /^l_[A-Za-z0-9_-]{16}$/;

async function locksNamed(inv: ReturnType<typeof resolveInvocation>, what: string): Promise<Named> {
  const res = await inv.client.call(operations.listLocks, parseInput(operations.listLocks, { board: inv.board }));
  const byId = res.locks.filter((l) => l.lock_id === what);
  if (byId.length > 0 || LOCK_ID.test(what)) return { id: what, key: what, locks: byId };
  let key: string;
  try {
    key = repoRelative([what], process.cwd())[0] ?? what;
  } catch {
    return { id: null, key: what, locks: [] };
  }
  return { id: null, key, locks: res.locks.filter((l) => l.resources.some((r) => overlaps(r, key))) };
}

const release = (inv: ReturnType<typeof resolveInvocation>, lock_id: string, force = false) =>
  inv.client.call(
    operations.unlockFiles,
    parseInput(operations.unlockFiles, force ? { lock_id, force: true, agent: inv.agent } : { lock_id }),
  );

/**
 * `coord unlock ID|PATH`: by id, that lock; by path, the caller's own locks that meet it (a hold is ended only
 * with --force). When nothing of the caller's meets the path it says so and exits 1: nothing was released.
 */
async function unlockOwn(inv: ReturnType<typeof resolveInvocation>, what: string): Promise<string[]> {
  const named = await locksNamed(inv, what);
  if (named.id !== null) {
    if (named.locks[0]?.hold) {
      throw new CliError(
        'not_found',
        `nothing released: ${named.id} is a change hold (its work is not merged yet) — it ends by itself once merged; end it now with coord unlock --force ${named.id}`,
        { released: [], lock_id: named.id },
      );
    }
    await release(inv, named.id);
    return [named.id];
  }
  const mine = named.locks.filter((l) => l.agent === inv.agent && !l.hold);
  if (mine.length === 0) {
    const others = named.locks.map((l) => `${l.hold ? 'a change hold' : 'a lock'} of ${l.agent} (${l.lock_id})`);
    throw new CliError(
      'not_found',
      `nothing released: ${inv.agent} holds no lock on ${named.key}${others.length > 0 ? ` — it is held by ${[...new Set(others)].join(', ')}; a person ends another's lock or a hold with coord unlock --force ${what}` : ' (coord locks lists who holds what)'}`,
      { released: [], key: named.key },
    );
  }
  for (const l of mine) await release(inv, l.lock_id);
  return mine.map((l) => l.lock_id);
}

export function registerLock(program: Command): void {
  withCommon(
    program
      .command('lock')
      .description('Lock files or directories (dir/) for a lease: all of them or none; a conflict names each holder')
      .argument('<path...>', 'paths, relative to here; they are stored relative to the repository root')
      .option('--lease <seconds>', 'lease length (default 300); renew before it ends'),
  ).action(
    action(async (paths: string[], flags: CommonFlags & { lease?: string }) => {
      const inv = resolveInvocation(flags);
      const located = repoKeys(paths, process.cwd());
      // A submodule's files go on the submodule's board, where its edits are checked — unless a board was named.
      const board = givenBoard(flags.board, process.env) ?? (located.board || inv.board);
      const input = parseInput(operations.lockFiles, {
        agent: inv.agent,
        board,
        resources: located.keys,
        lease_s: num(flags.lease),
        ...cwdTree(),
      });
      const l = await inv.client.call(operations.lockFiles, input);
      emit(flags, l, () =>
        [
          `locked ${l.resources.join(' ')}${board === inv.board ? '' : ` on board ${board} (the repository they are in)`} · lock ${l.lock_id} · lease until ${clockTime(l.lease_until)} UTC`,
          `next: coord renew ${l.lock_id}   |   coord unlock ${l.lock_id}`,
        ].join('\n'),
      );
    }),
  );

  withCommon(
    program
      .command('renew')
      .description('Extend a lock’s lease')
      .argument('<lock_id>', 'the lock_id printed by coord lock')
      .option('--lease <seconds>', 'new lease from now (default: the lease it was taken with)'),
    { agent: false, board: false },
  ).action(
    action(async (lockId: string, flags: CommonFlags & { lease?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.renewLock, { lock_id: lockId, lease_s: num(flags.lease) });
      const res = await inv.client.call(operations.renewLock, input);
      emit(flags, res, () => `lock ${input.lock_id} held until ${clockTime(res.lease_until)} UTC`);
    }),
  );

  withCommon(
    program
      .command('unlock')
      .description(
        'Release a lock by its id, or your own lock on a path (releasing twice is fine); --force also ends another’s lock or a change hold',
      )
      .argument(
        '<lock_id|path>',
        'the lock_id printed by coord lock, or a path: your lock on it (with --force, every lock and hold on it)',
      )
      .option('--force', 'end it even if it is a change hold whose work is not merged yet (noted on its task)'),
    { board: true },
  ).action(
    action(async (what: string, flags: CommonFlags & { force?: boolean }) => {
      const inv = resolveInvocation(flags);
      if (!flags.force) {
        const ids = await unlockOwn(inv, what);
        // By id, the API's answer as it is; by path, which of the caller's locks that was.
        const answer = ids[0] === what ? { released: true } : { released: true, lock_ids: ids };
        emit(flags, answer, () => `released ${ids.join(' ')}`);
        return;
      }
      const named = await locksNamed(inv, what);
      const ids = named.id !== null ? [named.id] : named.locks.map((l) => l.lock_id);
      for (const lock_id of ids) await release(inv, lock_id, true);
      emit(flags, { released: ids }, () =>
        ids.length === 0 ? `nothing holds ${what}` : `ended ${ids.join(' ')} (--force)`,
      );
    }),
  );

  withCommon(
    program
      .command('locks')
      .description('The live locks on the board: holder, lease end, task, resources')
      .option('--all', 'every board'),
    { agent: false },
  ).action(
    action(async (flags: CommonFlags & { all?: boolean }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.listLocks, flags.all ? {} : { board: inv.board });
      const res = await inv.client.call(operations.listLocks, input);
      emit(flags, res, () => lockTable(res.locks));
    }),
  );
}
