import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op } from './board.js';

const full = async (b: Board, task_id: string) => (await b.call(op.showTask, { task_id })).task;

export function notesContract(make: MakeStore): void {
  describe('notes on tasks', () => {
    const board = freshBoard(make);

    test('a note is added by anyone who can see the task, shows in the task with its count, and is a task.noted event', async () => {
      const b = board();
      const task = await b.post('alice');
      const { note } = await b.call(op.addNote, {
        task_id: task.id,
        agent: 'bob',
        text: 'looked at it: the bug is in auth.ts',
      });
      assert.equal(note.task_id, task.id);
      assert.equal(note.agent, 'bob');
      assert.equal(note.text, 'looked at it: the bug is in auth.ts');
      const shown = (await b.call(op.showTask, { task_id: task.id, agent: 'carol' })).task;
      assert.equal(shown.notes_count, 1);
      assert.deepEqual(shown.notes, [note]);
      const noted = (await b.events()).filter((e) => e.type === 'task.noted');
      assert.deepEqual(
        noted.map((e) => [e.task_id, e.agent]),
        [[task.id, 'bob']],
      );
    });

    test('the task carries the last 20 notes, oldest first, and the count of all of them', async () => {
      const b = board();
      const task = await b.post('alice');
      for (let i = 0; i < 23; i++) await b.call(op.addNote, { task_id: task.id, agent: 'bob', text: `note ${i}` });
      const shown = await full(b, task.id);
      assert.equal(shown.notes_count, 23);
      assert.deepEqual(
        shown.notes?.map((n) => n.text),
        Array.from({ length: 20 }, (_, i) => `note ${i + 3}`),
      );
    });

    test('a note on a private task of someone else is not_found and writes nothing', async () => {
      const b = board();
      const task = await b.post('alice', { for: 'bob' });
      const err = await b.fail(op.addNote, { task_id: task.id, agent: 'mallory', text: 'hi' });
      assert.equal(err.code, 'not_found');
      assert.equal((await full(b, task.id)).notes_count, 0);
      await b.call(op.addNote, { task_id: task.id, agent: 'bob', text: 'mine' });
      await b.call(op.addNote, { task_id: task.id, agent: 'alice', text: 'the author may too' });
      assert.equal((await full(b, task.id)).notes_count, 2);
    });

    test('the same key and text returns the same note; the same key with another text is idempotency_conflict', async () => {
      const b = board();
      const task = await b.post('alice');
      const first = await b.call(op.addNote, { task_id: task.id, agent: 'bob', text: 'x', idempotency_key: 'k1' });
      const again = await b.call(op.addNote, { task_id: task.id, agent: 'bob', text: 'x', idempotency_key: 'k1' });
      assert.equal(first.created, true);
      assert.equal(again.created, false);
      assert.deepEqual(again.note, first.note);
      const err = await b.fail(op.addNote, { task_id: task.id, agent: 'bob', text: 'y', idempotency_key: 'k1' });
      assert.equal(err.code, 'idempotency_conflict');
      assert.equal((await full(b, task.id)).notes_count, 1);
    });

    test('a note over 8 KiB is refused and nothing is written', async () => {
      const b = board();
      const task = await b.post('alice');
      const before = (await b.events()).length;
      const err = await b.fail(op.addNote, { task_id: task.id, agent: 'bob', text: 'é'.repeat(4097) });
      assert.equal(err.code, 'invalid_request');
      assert.equal((await full(b, task.id)).notes_count, 0);
      assert.equal((await b.events()).length, before);
      await b.call(op.addNote, { task_id: task.id, agent: 'bob', text: 'é'.repeat(4096) });
    });

    test('a handoff with a note writes the note in the same transaction, by the holder', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      await b.call(op.releaseTask, {
        task_id: task.id,
        claim_id: grant.claim_id,
        to: 'carol',
        note: 'done: parser; left: tests',
      });
      const shown = (await b.call(op.showTask, { task_id: task.id, agent: 'carol' })).task;
      assert.equal(shown.for, 'carol');
      assert.deepEqual(
        shown.notes?.map((n) => [n.agent, n.text]),
        [['bob', 'done: parser; left: tests']],
      );
      const types = (await b.events()).map((e) => e.type);
      assert.deepEqual(types.slice(-2), ['task.requeued', 'task.noted']);
    });

    test('a release refused by its fence writes no note', async () => {
      const b = board();
      const task = await b.post('alice');
      await b.claim(task.id, 'bob');
      const err = await b.fail(op.releaseTask, { task_id: task.id, claim_id: 'c_wrong', note: 'sneaky' });
      assert.equal(err.code, 'stale_claim');
      assert.equal((await full(b, task.id)).notes_count, 0);
    });

    test('submit and cancel take a note; a replayed submit and a second cancel write no second one', async () => {
      const b = board();
      const a = await b.post('alice');
      const grant = await b.claim(a.id, 'bob');
      const submit = { task_id: a.id, claim_id: grant.claim_id, status: 'completed', result: { ok: 1 }, note: 'fixed' };
      await b.call(op.submitResult, submit);
      const replay = await b.call(op.submitResult, submit);
      assert.equal(replay.replayed, true);
      assert.deepEqual(
        (await full(b, a.id)).notes?.map((n) => [n.agent, n.text]),
        [['bob', 'fixed']],
      );
      const c = await b.post('alice');
      await b.call(op.cancelTask, { task_id: c.id, agent: 'alice', note: 'not needed' });
      await b.call(op.cancelTask, { task_id: c.id, agent: 'alice', note: 'not needed' });
      assert.deepEqual(
        (await full(b, c.id)).notes?.map((n) => [n.agent, n.text]),
        [['alice', 'not needed']],
      );
    });
  });
}
