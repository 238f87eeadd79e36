import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoke } from '../../src/core/invoke.js';
import type { Ctx, Operation } from '../../src/core/operation.js';
import type { Store } from '../../src/core/ports.js';
import { Presence } from '../../src/core/presence.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** Folders tempDir made in this process: removed when it exits (a full `npm test` made ~800 and left them all). */
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // A folder still in use (a mount, a file held open elsewhere) stays: it is the system's to clean.
    }
  }
});

export const tempDir = (prefix = 'coord-test-'): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};

export type MakeStore = (clock: ManualClock) => Promise<Store>;

export const makeSqliteStore: MakeStore = async (clock) =>
  new SqliteStore({ path: join(tempDir(), 'coord.db'), clock });

/** A core bound to one store and a hand-driven clock, calling operations the way every transport does. */
export interface Harness {
  store: Store;
  clock: ManualClock;
  ctx: Ctx;
  call<O>(op: Operation<never, O> | Operation<import('zod').ZodType, O>, input: unknown, session?: string): Promise<O>;
  fail(op: Operation, input: unknown): Promise<{ code: string; message: string; details: Record<string, unknown> }>;
}

export async function harness(make: MakeStore): Promise<Harness> {
  const clock = new ManualClock();
  const store = await make(clock);
  const ctx: Ctx = { store, clock, presence: new Presence() };
  const call = <O>(op: Operation<import('zod').ZodType, O>, input: unknown, session?: string) =>
    invoke(op, session ? { ...ctx, session_id: session } : ctx, input);
  return {
    store,
    clock,
    ctx,
    call: call as Harness['call'],
    async fail(op, input) {
      try {
        await invoke(op, ctx, input);
      } catch (e) {
        const err = e as { code: string; message: string; details: Record<string, unknown> };
        if (typeof err.code !== 'string') throw e;
        return { code: err.code, message: err.message, details: err.details };
      }
      throw new Error(`expected ${op.name} to fail`);
    },
  };
}
