/**
 * SPEC §14: ending another agent's lock is a person's act. Over MCP (a local session or a connector) an
 * agent releases only its own locks — `unlock_files` with another's lock_id is `forbidden`, forced or not —
 * and no answer hands it another agent's lock_id. (Holds: test/worktrees/suites/holds.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mcpHarness } from './harness.js';

describe('unlock_files over MCP ends only the caller’s own locks', () => {
  test("bob cannot end alice's lock with her lock_id, forced or not; the conflict he got never named it; alice can", async () => {
    const h = await mcpHarness();
    const alice = await h.agent({ agent: 'alice' });
    const bob = await h.agent({ agent: 'bob' });
    const lock = (await alice.call('lock_files', { files: ['src/a.ts'] })).data;

    const conflict = await bob.call('lock_files', { files: ['src/a.ts'] });
    assert.equal(conflict.isError, true);
    const conflicts = conflict.data.error.conflicts as Record<string, unknown>[];
    assert.equal(conflicts[0]?.holder, 'alice');
    assert.equal('lock_id' in (conflicts[0] ?? {}), false, JSON.stringify(conflict.data));
    assert.ok(!JSON.stringify(conflict.raw).includes(lock.lock_id), 'no part of the answer carries her lock_id');

    for (const args of [{ lock_id: lock.lock_id }, { lock_id: lock.lock_id, force: true, agent: 'a-person' }]) {
      const ended = await bob.call('unlock_files', args);
      assert.equal(ended.isError, true, ended.text);
      assert.match(ended.text, /^forbidden: lock \S+ is alice's, not yours — an agent ends only its own locks/);
    }
    const live = await h.ctx.store.listLocks('default');
    assert.deepEqual(
      live.map((l) => [l.lock_id, l.agent]),
      [[lock.lock_id, 'alice']],
      'her lock is untouched',
    );

    assert.equal((await alice.call('unlock_files', { lock_id: lock.lock_id })).isError, false);
    assert.deepEqual(await h.ctx.store.listLocks('default'), []);
    assert.equal((await bob.call('unlock_files', { lock_id: lock.lock_id })).isError, false, 'gone: fine to repeat');
  });

  test('an agent’s own lock in a lock_conflict keeps its lock_id (it may renew or release it)', async () => {
    const h = await mcpHarness();
    const alice = await h.agent({ agent: 'alice' });
    const lock = (await alice.call('lock_files', { files: ['src/'] })).data;
    const again = await alice.call('lock_files', { files: ['src/a.ts', 'docs/x.md'] });
    assert.equal(again.isError, true, again.text);
    assert.equal(again.data.error.conflicts[0]?.lock_id, lock.lock_id);
  });
});
