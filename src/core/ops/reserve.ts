/**
 * SPEC §14 "Resources that are not files": `coord reserve port` locks, in one
 * step, the lowest port of a range that no live lock holds (a `port:` lock on
 * any board of this daemon counts: ports are the machine's) and that nothing
 * listens on. It is a lock like any other (session, lease, unlock), but never
 * a change hold: git knows nothing of ports.
 */
import { z } from 'zod';
import { CoordError } from '../errors.js';
import { DEFAULT_BOARD, DEFAULT_LEASE_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { AgentName, BoardName, LeaseS } from '../schemas.js';
import { newLockId } from '../shared/ids.js';

export const DEFAULT_PORT_RANGE = { from: 3000, to: 3999 };
const MAX_TRIES = 2000;

const rangeOf = (s: string): { from: number; to: number } => {
  const [from = 0, to = 0] = s.split('-').map(Number);
  return { from, to };
};
// Kept a string on the wire (the CLI sends what it was given); read by rangeOf.
const PortRange = z
  .string()
  .regex(/^\d{1,5}-\d{1,5}$/, 'must be FROM-TO, e.g. 3000-3999')
  .refine((s) => {
    const r = rangeOf(s);
    return r.from >= 1 && r.to <= 65535 && r.from <= r.to;
  }, 'must be a range of ports 1–65535, low end first');

export const ReservePortInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  range: PortRange.optional().describe('Ports to choose from, e.g. "3000-3999" (default).'),
  lease_s: LeaseS.optional(),
});
export const ReservePortOutput = z.object({
  port: z.int(),
  lock_id: z.string(),
  resources: z.array(z.string()),
  lease_until: z.string(),
});

const portOf = (key: string): number | null => {
  const m = /^port:(\d{1,5})$/.exec(key);
  return m?.[1] ? Number(m[1]) : null;
};

export const reservePort = defineOperation({
  name: 'reserve_port',
  summary: 'Lock the lowest port of a range that no lock holds and nothing listens on, in one step.',
  input: ReservePortInput,
  output: ReservePortOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const range = input.range ? rangeOf(input.range) : DEFAULT_PORT_RANGE;
    const taken = async () =>
      new Set((await ctx.store.listLocks()).flatMap((l) => l.resources.map(portOf).filter((p) => p !== null)));
    let used = await taken();
    let tries = 0;
    for (let port = range.from; port <= range.to && tries < MAX_TRIES; port++) {
      if (used.has(port)) continue;
      tries++;
      if (ctx.machine && (await ctx.machine.listening(port))) continue;
      const lock_id = newLockId();
      const got = await ctx.store.acquireLocks({
        lock_id,
        board,
        agent: input.agent,
        resources: [`port:${port}`],
        lease_ms: (input.lease_s ?? DEFAULT_LEASE_S) * 1000,
        session_id: ctx.session_id ?? null,
        worktree: null,
      });
      if (!got.ok) continue;
      // Locks are per board: another board may have taken the same port at the same instant. The older lock
      // keeps it (ties by lock id), the other looks further.
      const rivals = (await ctx.store.listLocks()).filter(
        (l) => l.lock_id !== lock_id && l.resources.includes(`port:${port}`),
      );
      const mine = got.lock;
      if (
        rivals.some((r) => r.created_at < mine.created_at || (r.created_at === mine.created_at && r.lock_id < lock_id))
      ) {
        await ctx.store.releaseLock(lock_id);
        used = await taken();
        continue;
      }
      ctx.presence.touch(input.agent, board, ctx.clock.now());
      return { port, lock_id, resources: mine.resources, lease_until: mine.lease_until };
    }
    throw new CoordError(
      'lock_conflict',
      `no free port in ${range.from}-${range.to}: each is locked or something listens on it — give another --range`,
      { conflicts: [] },
    );
  },
});
