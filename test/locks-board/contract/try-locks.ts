import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { freshBoard, op, S } from '../../store/contract/board.js';
import type { MakeStore } from '../../support/ctx.js';
import { conflicts, held, lock, lockEvents } from './helpers.js';

export function tryLockContract(make: MakeStore): void {
  describe('try-locks on files (rule 11)', () => {
    const board = freshBoard(make);

    test('of two agents asking at once for overlapping sets, one gets the lock and the other lock_conflict naming it, and the loser holds nothing', async () => {
      const b = board();
      const [alice, bob] = await Promise.allSettled([
        lock(b, 'alice', ['a.ts', 'b.ts']),
        lock(b, 'bob', ['b.ts', 'c.ts']),
      ]);
      const won = [alice, bob].filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, 'exactly one of two overlapping requests wins');
      const winner = alice.status === 'fulfilled' ? 'alice' : 'bob';
      const loser = winner === 'alice' ? 'bob' : 'alice';
      const grant = (won[0] as PromiseFulfilledResult<{ lock_id: string; lease_until: string }>).value;
      const lost = [alice, bob].find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal(lost.reason.code, 'lock_conflict');
      assert.deepEqual(lost.reason.details.conflicts, [
        { resource: 'b.ts', held: 'b.ts', holder: winner, lock_id: grant.lock_id, lease_until: grant.lease_until },
      ]);
      const holding = await held(b);
      assert.equal(Object.values(holding).includes(loser), false, 'the loser holds nothing');
      // All-or-nothing: the loser's file that nobody else wanted is still free.
      const free = loser === 'bob' ? 'c.ts' : 'a.ts';
      assert.ok(await lock(b, 'carol', [free]));
    });

    test('disjoint sets are both granted, each with its own lock_id', async () => {
      const b = board();
      const one = await lock(b, 'alice', ['src/a.ts', 'src/b.ts']);
      const two = await lock(b, 'bob', ['src/c.ts', 'docs/']);
      assert.notEqual(one.lock_id, two.lock_id);
      assert.deepEqual(await held(b), {
        'src/a.ts': 'alice',
        'src/b.ts': 'alice',
        'src/c.ts': 'bob',
        'docs/': 'bob',
      });
    });

    test('a directory lock conflicts with a file inside it, and a file lock with a directory around it', async () => {
      const b = board();
      const dir = await lock(b, 'alice', ['src/']);
      const inside = await conflicts(b, 'bob', ['src/deep/x.ts']);
      assert.deepEqual(
        inside.map((c) => [c.resource, c.held, c.holder, c.lock_id]),
        [['src/deep/x.ts', 'src/', 'alice', dir.lock_id]],
      );
      const file = await lock(b, 'carol', ['lib/deep/y.ts']);
      const around = await conflicts(b, 'bob', ['lib/']);
      assert.deepEqual(
        around.map((c) => [c.resource, c.held, c.holder, c.lock_id]),
        [['lib/', 'lib/deep/y.ts', 'carol', file.lock_id]],
      );
      // Neighbours whose names merely share a prefix are not inside: src-old/, src.ts, srcx/.
      assert.ok(await lock(b, 'bob', ['src-old/', 'src.ts', 'srcx/a.ts', 'lib-two/']));
    });

    test('a directory named without its slash still covers what is inside it', async () => {
      const b = board();
      await lock(b, 'alice', ['src']);
      assert.deepEqual(
        (await conflicts(b, 'bob', ['src/x.ts', 'src/'])).map((c) => [c.resource, c.held]),
        [['src/', 'src']],
        'src/x.ts is dropped from the request as inside src/, which meets the held src',
      );
    });

    test('paths are normalised before they are compared: ./a//b/../c is a/c', async () => {
      const b = board();
      const got = await lock(b, 'alice', ['./a//b/../c', 'x\\y.ts', 'd/./e/']);
      assert.deepEqual(got.resources, ['a/c', 'd/e/', 'x/y.ts']);
      assert.deepEqual(
        (await conflicts(b, 'bob', ['a/c'])).map((c) => c.held),
        ['a/c'],
      );
    });

    test('a set is deduplicated, keys inside a directory of the same set dropped, and sorted', async () => {
      const b = board();
      const got = await lock(b, 'alice', ['z.ts', 'src/a.ts', 'src/', 'z.ts', 'b/c/../c.ts']);
      assert.deepEqual(got.resources, ['b/c.ts', 'src/', 'z.ts']);
    });

    test('a path that climbs out of the root, an absolute path or the root itself is invalid_request naming it', async () => {
      const b = board();
      const err = await b.fail(op.lockFiles, {
        agent: 'alice',
        resources: ['ok.ts', '../x', 'a/../../y', '/etc/x', './'],
      });
      assert.equal(err.code, 'invalid_request');
      const issues = err.details.issues as { path: string; message: string }[];
      assert.deepEqual(
        issues.map((i) => i.path),
        ['resources.1', 'resources.2', 'resources.3', 'resources.4'],
      );
      assert.match(issues[0]!.message, /climbs out of the repository root/);
      assert.match(issues[2]!.message, /absolute .* relative to the repository root/);
      assert.equal(
        (await b.fail(op.lockFiles, { agent: 'alice', resources: [] })).code,
        'invalid_request',
        'an empty set is refused',
      );
      assert.deepEqual(await held(b), {}, 'nothing was locked');
    });

    test('every conflicting resource is listed with its holder, lock_id and lease end', async () => {
      const b = board();
      const a = await lock(b, 'alice', ['a.ts'], 60);
      const c = await lock(b, 'carol', ['c/'], 120);
      const found = await conflicts(b, 'bob', ['a.ts', 'b.ts', 'c/d.ts', 'c/e.ts']);
      assert.deepEqual(found, [
        { resource: 'a.ts', held: 'a.ts', holder: 'alice', lock_id: a.lock_id, lease_until: a.lease_until },
        { resource: 'c/d.ts', held: 'c/', holder: 'carol', lock_id: c.lock_id, lease_until: c.lease_until },
        { resource: 'c/e.ts', held: 'c/', holder: 'carol', lock_id: c.lock_id, lease_until: c.lease_until },
      ]);
    });

    test('asking again for files you hold answers your own lock, renewed, so nobody holds a file twice; a set your locks only partly cover is "already yours" naming them', async () => {
      const b = board();
      const mine = await lock(b, 'alice', ['a.ts', 'b.ts'], 60);
      b.clock.advance(30 * S);
      const again = await lock(b, 'alice', ['a.ts'], 60);
      assert.equal(again.lock_id, mine.lock_id, 'the same lock, not a second one');
      assert.equal(again.lease_until, new Date(b.clock.now() + 60 * S).toISOString(), 'renewed');
      assert.deepEqual(await held(b), { 'a.ts': 'alice', 'b.ts': 'alice' });
      const partly = await b.fail(op.lockFiles, { agent: 'alice', resources: ['a.ts', 'c.ts'] });
      assert.equal(partly.code, 'lock_conflict');
      assert.match(partly.message, new RegExp(`already yours \\(lock ${mine.lock_id}\\)`));
      assert.deepEqual(await held(b), { 'a.ts': 'alice', 'b.ts': 'alice' }, 'c.ts was not taken');
    });

    test('a lock whose lease lapses stops conflicting at once, and is cleaned up with a lock.released event', async () => {
      const b = board();
      const first = await lock(b, 'alice', ['a.ts'], 30);
      assert.equal(first.lease_until, new Date(b.clock.now() + 30 * S).toISOString());
      b.clock.advance(30 * S - 1);
      assert.equal((await conflicts(b, 'bob', ['a.ts'])).length, 1);
      b.clock.advance(1);
      assert.deepEqual(await held(b), {}, 'a lapsed lock is no longer listed');
      const second = await lock(b, 'bob', ['a.ts']);
      assert.deepEqual(await held(b), { 'a.ts': 'bob' });
      assert.deepEqual(
        (await lockEvents(b)).map((e) => [e.type, e.lock_id, e.reason]),
        [
          ['lock.acquired', first.lock_id, undefined],
          ['lock.released', first.lock_id, 'lease_lapsed'],
          ['lock.acquired', second.lock_id, undefined],
        ],
      );
    });

    test('renew extends a live lock (by default by the lease it was taken with); a lapsed or released lock is not_found', async () => {
      const b = board();
      const l = await lock(b, 'alice', ['a.ts'], 30);
      b.clock.advance(20 * S);
      const renewed = await b.call(op.renewLock, { lock_id: l.lock_id });
      assert.equal(renewed.lease_until, new Date(b.clock.now() + 30 * S).toISOString());
      const longer = await b.call(op.renewLock, { lock_id: l.lock_id, lease_s: 600 });
      assert.equal(longer.lease_until, new Date(b.clock.now() + 600 * S).toISOString());
      b.clock.advance(600 * S);
      const lapsed = await b.fail(op.renewLock, { lock_id: l.lock_id });
      assert.equal(lapsed.code, 'not_found');
      assert.equal(lapsed.details.lock_id, l.lock_id);
      const other = await lock(b, 'alice', ['b.ts']);
      await b.call(op.unlockFiles, { lock_id: other.lock_id });
      assert.equal((await b.fail(op.renewLock, { lock_id: other.lock_id })).code, 'not_found');
    });

    test('releasing a lock twice answers released both times; the files are free after the first', async () => {
      const b = board();
      const l = await lock(b, 'alice', ['a.ts', 'dir/']);
      assert.deepEqual(await b.call(op.unlockFiles, { lock_id: l.lock_id }), { released: true });
      assert.deepEqual(await held(b), {});
      assert.deepEqual(await b.call(op.unlockFiles, { lock_id: l.lock_id }), { released: true });
      assert.deepEqual(await b.call(op.unlockFiles, { lock_id: 'l_never_existed' }), { released: true });
      assert.ok(await lock(b, 'bob', ['dir/a.ts']));
      const released = (await lockEvents(b)).filter((e) => e.type === 'lock.released');
      assert.deepEqual(
        released.map((e) => [e.lock_id, e.reason]),
        [[l.lock_id, 'released']],
        'one release event, not one per call',
      );
    });

    test('boards are separate namespaces: the same path locks on two boards, and list_locks filters by board', async () => {
      const b = board();
      await b.call(op.lockFiles, { agent: 'alice', resources: ['a.ts'], board: 'one' });
      await b.call(op.lockFiles, { agent: 'bob', resources: ['a.ts'], board: 'two' });
      assert.deepEqual(await held(b, 'one'), { 'a.ts': 'alice' });
      assert.deepEqual(await held(b, 'two'), { 'a.ts': 'bob' });
      assert.equal((await b.call(op.listLocks, {})).locks.length, 2);
    });

    test("a port is the machine's: lock_files port:N is refused while another board holds port:N, naming holder and board, and free once that lock ends; db: keys stay per board", async () => {
      const b = board();
      const first = await b.call(op.lockFiles, { agent: 'alice', resources: ['port:5173', 'db:dev'], board: 'one' });
      const err = await b.fail(op.lockFiles, { agent: 'bob', resources: ['port:5173'], board: 'two' });
      assert.equal(err.code, 'lock_conflict');
      assert.match(err.message, /^port:5173 is held by alice on board one — ports are the machine's/);
      assert.deepEqual(
        (err.details.conflicts as { holder: string; lock_id: string }[]).map((c) => [c.holder, c.lock_id]),
        [['alice', first.lock_id]],
      );
      assert.deepEqual(await held(b, 'two'), {}, 'the refused lock holds nothing');
      await b.call(op.lockFiles, { agent: 'bob', resources: ['db:dev', 'port:5174'], board: 'two' });
      await b.call(op.unlockFiles, { lock_id: first.lock_id });
      await b.call(op.lockFiles, { agent: 'bob', resources: ['port:5173'], board: 'two' });
      assert.deepEqual(await held(b, 'two'), { 'db:dev': 'bob', 'port:5173': 'bob', 'port:5174': 'bob' });
    });

    test('list_agents shows the files each agent holds', async () => {
      const b = board();
      await lock(b, 'alice', ['a.ts', 'src/']);
      const { agents } = await b.call(op.listAgents, {});
      const alice = agents.find((a) => a.name === 'alice');
      assert.deepEqual(alice?.locks, ['a.ts', 'src/']);
      assert.equal(alice?.active, true);
    });
  });
}
