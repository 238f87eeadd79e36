/**
 * The SQLite store keeps empty inbox answers (src/store/sqlite/inbox.ts, EmptyInboxes) so an idle agent's poll
 * reads two counters instead of the board. A kept answer must never outlive what it describes: a write by this
 * connection, a write by another connection to the same file, or a lease or ttl falling due.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { operations as op } from '../../src/core/operations.js';
import type { ManualClock } from '../../src/core/shared/clock.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { harness, tempDir } from '../support/ctx.js';

async function board() {
  const path = join(tempDir(), 'coord.db');
  const h = await harness(async (clock: ManualClock) => new SqliteStore({ path, clock }));
  const inbox = (agent: string) => h.call(op.inbox, { agent });
  return { ...h, path, inbox };
}

describe('empty inbox answers kept by the SQLite store', () => {
  test('a task posted on this connection appears in the next poll of an agent whose inbox was empty', async () => {
    const b = await board();
    for (let i = 0; i < 3; i++) assert.deepEqual((await b.inbox('bob')).tasks, []);
    const { task } = await b.call(op.createTask, { agent: 'alice', title: 'fresh work' });
    assert.deepEqual(
      (await b.inbox('bob')).tasks.map((t) => t.id),
      [task.id],
    );
  });

  test('a task written by another connection to the same file appears in the next poll', async () => {
    const b = await board();
    const { task } = await b.call(op.createTask, { agent: 'alice', title: 'to be claimed elsewhere' });
    await b.call(op.claimTask, { agent: 'carol', task_id: task.id });
    assert.deepEqual((await b.inbox('bob')).tasks, []);
    assert.deepEqual((await b.inbox('bob')).tasks, []);
    // Another process hands the task back, straight into the file.
    const other = new Database(b.path);
    other.pragma('busy_timeout = 5000');
    other
      .prepare(`UPDATE tasks SET state = 'queued', claimed_by = NULL, claim_id = NULL, lease_until = NULL WHERE id = ?`)
      .run(task.id);
    other.close();
    assert.deepEqual(
      (await b.inbox('bob')).tasks.map((t) => t.id),
      [task.id],
    );
  });

  test('a claim whose lease lapses shows up in an idle agent’s next poll, with nothing written in between', async () => {
    const b = await board();
    const { task } = await b.call(op.createTask, { agent: 'alice', title: 'held briefly' });
    await b.call(op.claimTask, { agent: 'carol', task_id: task.id, lease_s: 30 });
    assert.deepEqual((await b.inbox('bob')).tasks, []);
    b.clock.advance(29_999);
    assert.deepEqual((await b.inbox('bob')).tasks, []);
    b.clock.advance(1);
    assert.deepEqual(
      (await b.inbox('bob')).tasks.map((t) => t.id),
      [task.id],
    );
  });

  test('a message sent to an idle agent appears in its next poll', async () => {
    const b = await board();
    assert.deepEqual((await b.inbox('bob')).messages ?? [], []);
    await b.call(op.sendMessage, { agent: 'alice', to: 'bob', text: 'please review src/a.ts' });
    assert.deepEqual(
      ((await b.inbox('bob')).messages ?? []).map((m) => m.text),
      ['please review src/a.ts'],
    );
  });
});
