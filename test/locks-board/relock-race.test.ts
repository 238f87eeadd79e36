/**
 * Locking files you already hold renews your lock (issue 26) — but that lock can end between the attempt that
 * found it and the renewal (its lease lapses in the sweep, another daemon releases it). The files are then free:
 * the request takes them, it never answers 404 for a lock (the PostgreSQL soak met exactly that).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operations as op } from '../../src/core/operations.js';
import type { Store } from '../../src/core/ports.js';
import { harness, type MakeStore, makeSqliteStore } from '../support/ctx.js';

/** A store whose renewLock finds its lock already gone: released just before, as by a racing sweep. */
const endsBeforeRenew: MakeStore = async (clock) => {
  const store = await makeSqliteStore(clock);
  return new Proxy(store, {
    get(target, key) {
      if (key === 'renewLock')
        return async (lockId: string, leaseMs: number | null) => {
          await target.releaseLock(lockId);
          return target.renewLock(lockId, leaseMs);
        };
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Store;
};

test('locking again files whose own lock ends before it is renewed takes them anew instead of answering not_found', async () => {
  const h = await harness(endsBeforeRenew);
  const first = (await h.call(op.lockFiles, { agent: 'alice', resources: ['src/a.ts'] })) as { lock_id: string };
  const again = (await h.call(op.lockFiles, { agent: 'alice', resources: ['src/a.ts'] })) as {
    lock_id: string;
    resources: string[];
  };
  assert.notEqual(again.lock_id, first.lock_id, 'a new lock: the old one ended');
  assert.deepEqual(again.resources, ['src/a.ts']);
  const { locks } = (await h.call(op.listLocks, {})) as { locks: { agent: string; resources: string[] }[] };
  assert.deepEqual(
    locks.map((l) => [l.agent, l.resources]),
    [['alice', ['src/a.ts']]],
  );
});
