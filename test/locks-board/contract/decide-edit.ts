import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Board, freshBoard, op, S } from '../../store/contract/board.js';
import type { MakeStore } from '../../support/ctx.js';
import { claimWithFiles, held, lock, lockEvents } from './helpers.js';

const SESSION = '0b7f3a52-3333-4c3e-9d5e-000000000003';

const decide = (b: Board, agent: string, paths: string[], session?: string, extra: Record<string, unknown> = {}) =>
  b.call(op.decideEdit, { agent, paths, ...extra }, session);

export function decideEditContract(make: MakeStore): void {
  describe('one decision per edit (SPEC §10)', () => {
    const board = freshBoard(make);

    test('an edit of a free path is allowed and takes an auto-lock of 10 minutes tied to the session', async () => {
      const b = board();
      const d = await decide(b, 'alice', ['src/a.ts'], SESSION);
      assert.equal(d.decision, 'allow');
      assert.ok(d.lock_id);
      assert.equal(d.reason, null);
      assert.equal(Date.parse(d.lease_until!) - b.clock.now(), 600 * S);
      assert.deepEqual(await held(b), { 'src/a.ts': 'alice' });
      await b.store.endSession(SESSION);
      assert.deepEqual(await held(b), {}, 'the auto-lock died with its session');
    });

    test('an edit of a path another agent holds is denied with lock_conflict naming path, holder, lease end and task, and writes nothing', async () => {
      const b = board();
      const t = await b.post('alice');
      const grant = await claimWithFiles(b, t.id, 'bob', ['src/']);
      const before = await lockEvents(b);
      const d = await decide(b, 'carol', ['src/a.ts', 'free.ts']);
      assert.equal(d.decision, 'deny');
      assert.equal(d.lock_id, null);
      assert.deepEqual(d.conflicts, [
        {
          resource: 'src/a.ts',
          held: 'src/',
          holder: 'bob',
          lock_id: grant.lock!.lock_id,
          lease_until: grant.lease_until,
          task_id: t.id,
        },
      ]);
      assert.match(
        d.reason!,
        /^lock_conflict: src\/a\.ts is held by bob \(as src\/\) until \d\d:\d\d:\d\d UTC \(in 5m\), task #/,
      );
      assert.deepEqual(await lockEvents(b), before, 'a denied edit writes nothing');
      assert.deepEqual(await held(b), { 'src/': 'bob' }, 'all or nothing: the free path was not taken either');
    });

    test("an agent's own locks never block its edits, and a path they cover is allowed without a new lock or a write", async () => {
      const b = board();
      const own = await lock(b, 'alice', ['src/'], 3600);
      const before = await b.events();
      const d = await decide(b, 'alice', ['src/deep/a.ts']);
      assert.equal(d.decision, 'allow');
      assert.equal(d.lock_id, null);
      assert.deepEqual(d.renewed, []);
      assert.equal(d.lease_until, own.lease_until);
      assert.deepEqual(await b.events(), before);
    });

    test('keys the agent holds are kept and only the others are taken, in one new lock', async () => {
      const b = board();
      await lock(b, 'alice', ['a.ts'], 3600);
      const d = await decide(b, 'alice', ['a.ts', 'b.ts', 'c.ts']);
      assert.equal(d.decision, 'allow');
      const { locks } = await b.call(op.listLocks, {});
      assert.deepEqual(locks.find((l) => l.lock_id === d.lock_id)?.resources, ['b.ts', 'c.ts']);
    });

    test('an edit renews its own auto-lock once half its lease is gone, and leaves a fresh one alone', async () => {
      const b = board();
      const first = await decide(b, 'alice', ['a.ts']);
      b.clock.advance(200 * S);
      const fresh = await decide(b, 'alice', ['a.ts']);
      assert.deepEqual(fresh.renewed, []);
      assert.equal(fresh.lease_until, first.lease_until);
      b.clock.advance(200 * S);
      const late = await decide(b, 'alice', ['a.ts']);
      assert.deepEqual(late.renewed, [first.lock_id]);
      assert.equal(Date.parse(late.lease_until!) - b.clock.now(), 600 * S);
      b.clock.advance(500 * S);
      assert.deepEqual(await held(b), { 'a.ts': 'alice' }, 'the renewed lease outlived the first one');
    });

    test("a claim's lock is not renewed by an edit: it follows its claim", async () => {
      const b = board();
      const t = await b.post('alice');
      const grant = await claimWithFiles(b, t.id, 'bob', ['a.ts']);
      b.clock.advance(200 * S);
      const d = await decide(b, 'bob', ['a.ts']);
      assert.equal(d.decision, 'allow');
      assert.deepEqual(d.renewed, []);
      assert.equal(d.lease_until, grant.lease_until);
    });

    test('a lapsed lock of another agent no longer denies: the edit takes the path', async () => {
      const b = board();
      await lock(b, 'bob', ['a.ts'], 60);
      b.clock.advance(61 * S);
      const d = await decide(b, 'alice', ['a.ts']);
      assert.equal(d.decision, 'allow');
      assert.deepEqual(await held(b), { 'a.ts': 'alice' });
    });

    test('of two agents deciding one free path at once, exactly one is allowed and the other is denied naming it', async () => {
      for (let round = 0; round < 10; round++) {
        const b = board();
        const path = `race-${round}.ts`;
        const [x, y] = await Promise.all([decide(b, 'alice', [path]), decide(b, 'bob', [path])]);
        const allowed = [x, y].filter((d) => d.decision === 'allow');
        assert.equal(allowed.length, 1, `round ${round}: exactly one allowed`);
        const winner = x.decision === 'allow' ? 'alice' : 'bob';
        const loser = x.decision === 'allow' ? y : x;
        assert.equal(loser.conflicts[0]?.holder, winner);
        assert.deepEqual(await held(b), { [path]: winner });
        await b.call(op.unlockFiles, { lock_id: allowed[0]!.lock_id });
      }
    });

    test('paths are keyed as locks are: spellings of one path meet, and a path that cannot be a key is invalid_request', async () => {
      const b = board();
      await lock(b, 'bob', ['src/a.ts']);
      const d = await decide(b, 'alice', ['./src//b/../a.ts']);
      assert.equal(d.decision, 'deny');
      assert.equal((await b.fail(op.decideEdit, { agent: 'alice', paths: ['../x'] })).code, 'invalid_request');
      assert.equal((await b.fail(op.decideEdit, { agent: 'alice', paths: [] })).code, 'invalid_request');
    });

    test('a work tree given with the edit is accepted (SPEC §14 holds are decided by it)', async () => {
      const b = board();
      const d = await decide(b, 'alice', ['a.ts'], undefined, { worktree: '/repo/wt-a' });
      assert.equal(d.decision, 'allow');
    });
  });
}
