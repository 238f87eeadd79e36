import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Message } from '../../../src/core/model.js';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op, S } from './board.js';

const send = async (b: Board, agent: string, to: string, text: string, more: Record<string, unknown> = {}) =>
  (await b.call(op.sendMessage, { agent, to, text, ...more })).message;
const inbox = (b: Board, agent: string, since?: number) =>
  b.call(op.inbox, { agent, ...(since === undefined ? {} : { since }) });
const sent = async (b: Board, agent: string) => (await b.call(op.listMessages, { agent, box: 'sent' })).messages;
const receipt = (m: Message | undefined, agent: string) => m?.receipts.find((r) => r.agent === agent);

/** Everything `agent` could learn about a message through its inbox, the lists, show and ack. */
async function sees(b: Board, id: string, agent: string): Promise<Record<string, boolean>> {
  const inInbox = ((await inbox(b, agent)).messages ?? []).some((m) => m.id === id);
  const inList = (await b.call(op.listMessages, { agent })).messages.some((m) => m.id === id);
  const inSent = (await sent(b, agent)).some((m) => m.id === id);
  const show = await b.call(op.showMessage, { message_id: id, agent }).then(
    () => true,
    (e: { code: string }) => (e.code === 'not_found' ? false : Promise.reject(e)),
  );
  return { inInbox, inList, inSent, show };
}

export function messagesContract(make: MakeStore): void {
  describe('messages between agents', () => {
    const board = freshBoard(make);

    test('a message shows in its recipient’s inbox, and the sender’s receipt says when and how it was delivered', async () => {
      const b = board();
      const m = await send(b, 'alice', 'bob', 'please take over the parser');
      assert.deepEqual(m.receipts, [{ agent: 'bob', delivered_at: null, delivered_via: null, acked_at: null }]);
      assert.equal(m.from, 'alice');
      b.clock.advance(5 * S);
      const view = await inbox(b, 'bob');
      assert.deepEqual(
        view.messages?.map((x) => x.text),
        ['please take over the parser'],
      );
      assert.equal(view.unread, 1);
      const r = receipt((await sent(b, 'alice'))[0], 'bob');
      assert.equal(r?.delivered_via, 'inbox');
      assert.equal(r?.delivered_at, new Date(b.clock.now()).toISOString());
      assert.equal(r?.acked_at, null);
      assert.ok((await b.events()).some((e) => e.type === 'message.sent' && e.agent === 'alice'));
    });

    test('reading twice does not consume: the message stays listed and its first delivery is never overwritten', async () => {
      const b = board();
      const m = await send(b, 'alice', 'bob', 'hello', { ack_required: true });
      await b.call(op.pendingMessages, { agent: 'bob', via: 'prime' });
      const first = receipt((await sent(b, 'alice'))[0], 'bob');
      b.clock.advance(60 * S);
      const v1 = await inbox(b, 'bob');
      const v2 = await inbox(b, 'bob');
      const listed = await b.call(op.listMessages, { agent: 'bob' });
      const again = await b.call(op.listMessages, { agent: 'bob' });
      for (const v of [v1, v2])
        assert.deepEqual(
          v.messages?.map((x) => x.id),
          [m.id],
        );
      for (const l of [listed, again])
        assert.deepEqual(
          l.messages.map((x) => x.id),
          [m.id],
        );
      const after = receipt((await sent(b, 'alice'))[0], 'bob');
      assert.equal(first?.delivered_via, 'prime');
      assert.deepEqual(after, first);
      assert.equal((await inbox(b, 'bob', v2.cursor)).messages?.length, 1, 'ack_required: listed until acknowledged');
    });

    test('an ack ends the listing, is recorded on the receipt once, and acknowledging twice is fine', async () => {
      const b = board();
      const m = await send(b, 'alice', 'bob', 'review #12 please', { ack_required: true });
      await inbox(b, 'bob');
      b.clock.advance(S);
      const first = await b.call(op.ackMessage, { message_id: m.id, agent: 'bob' });
      b.clock.advance(S);
      const second = await b.call(op.ackMessage, { message_id: m.id, agent: 'bob' });
      assert.equal(first.acked, true);
      assert.equal(second.acked, false);
      assert.equal(receipt(second.message, 'bob')?.acked_at, receipt(first.message, 'bob')?.acked_at);
      assert.deepEqual((await inbox(b, 'bob')).messages, []);
      assert.equal((await inbox(b, 'bob')).unread, 0);
      assert.equal((await b.events()).filter((e) => e.type === 'message.acked').length, 1);
      assert.ok(receipt((await sent(b, 'alice'))[0], 'bob')?.acked_at);
    });

    test('a message without ack_required is acknowledged by the next inbox `since` past the one that showed it', async () => {
      const b = board();
      const plain = await send(b, 'alice', 'bob', 'fyi: main is green');
      const needs = await send(b, 'alice', 'bob', 'ack this', { ack_required: true });
      const v1 = await inbox(b, 'bob');
      assert.deepEqual(v1.messages?.map((m) => m.id).sort(), [plain.id, needs.id].sort());
      const older = await inbox(b, 'bob', v1.cursor - 1);
      assert.equal(older.messages?.length, 2, 'a since before the showing acknowledges nothing');
      const v2 = await inbox(b, 'bob', v1.cursor);
      assert.deepEqual(
        v2.messages?.map((m) => m.id),
        [needs.id],
      );
      const receipts = await sent(b, 'alice');
      assert.ok(
        receipt(
          receipts.find((m) => m.id === plain.id),
          'bob',
        )?.acked_at,
      );
      assert.equal(
        receipt(
          receipts.find((m) => m.id === needs.id),
          'bob',
        )?.acked_at,
        null,
      );
    });

    test('to "*" reaches every agent known on the board but the sender, with one receipt each', async () => {
      const b = board();
      await b.post('bob');
      await inbox(b, 'carol');
      await b.post('dave', { board: 'other' });
      const m = await send(b, 'alice', '*', 'standup in 5');
      assert.deepEqual(
        m.receipts.map((r) => r.agent),
        ['bob', 'carol'],
      );
      await inbox(b, 'bob');
      await b.call(op.ackMessage, { message_id: m.id, agent: 'carol' });
      const [mine] = await sent(b, 'alice');
      assert.equal(receipt(mine, 'bob')?.delivered_via, 'inbox');
      assert.equal(receipt(mine, 'bob')?.acked_at, null);
      assert.ok(receipt(mine, 'carol')?.acked_at);
      assert.equal(receipt(mine, 'carol')?.delivered_at, null, 'acknowledging is not showing');
      const bobs = (await b.call(op.listMessages, { agent: 'bob' })).messages;
      assert.deepEqual(
        bobs[0]?.receipts.map((r) => r.agent),
        ['bob'],
        'a recipient sees its own receipt only',
      );
      assert.equal((await inbox(b, 'dave')).messages?.length, 0, 'another board is not this board');
    });

    test('a message is not_found to everyone but its sender and recipients, for show, ack, lists and inbox', async () => {
      const b = board();
      await inbox(b, 'carol');
      const direct = await send(b, 'alice', 'bob', 'secret');
      assert.deepEqual(await sees(b, direct.id, 'mallory'), {
        inInbox: false,
        inList: false,
        inSent: false,
        show: false,
      });
      const err = await b.fail(op.ackMessage, { message_id: direct.id, agent: 'mallory' });
      assert.equal(err.code, 'not_found');
      assert.equal(
        err.message.replace(direct.id, 'ID'),
        (await b.fail(op.ackMessage, { message_id: 'mnosuch', agent: 'mallory' })).message.replace('mnosuch', 'ID'),
        'exactly as if it did not exist',
      );
      assert.equal((await b.fail(op.ackMessage, { message_id: direct.id, agent: 'alice' })).code, 'not_found');
      assert.deepEqual(await sees(b, direct.id, 'bob'), { inInbox: true, inList: true, inSent: false, show: true });
      assert.deepEqual(await sees(b, direct.id, 'alice'), { inInbox: false, inList: false, inSent: true, show: true });
      const all = await send(b, 'alice', '*', 'to everyone known');
      // eve was never seen on the board before it was sent (mallory was: looking counts as being there).
      assert.deepEqual(await sees(b, all.id, 'eve'), { inInbox: false, inList: false, inSent: false, show: false });
      assert.equal((await sees(b, all.id, 'carol')).show, true);
      assert.equal(receipt((await sent(b, 'alice'))[1], 'bob')?.acked_at, null, 'mallory’s attempts changed nothing');
    });

    test('the same key and payload returns the same message; another payload or another sender is idempotency_conflict', async () => {
      const b = board();
      const first = await b.call(op.sendMessage, { agent: 'alice', to: 'bob', text: 'x', idempotency_key: 'k' });
      const again = await b.call(op.sendMessage, { agent: 'alice', to: 'bob', text: 'x', idempotency_key: 'k' });
      assert.equal(first.created, true);
      assert.equal(again.created, false);
      assert.equal(again.message.id, first.message.id);
      for (const other of [
        { agent: 'alice', to: 'bob', text: 'y' },
        { agent: 'alice', to: 'carol', text: 'x' },
        { agent: 'mallory', to: 'bob', text: 'x' },
      ]) {
        const err = await b.fail(op.sendMessage, { ...other, idempotency_key: 'k' });
        assert.equal(err.code, 'idempotency_conflict');
        assert.doesNotMatch(err.message, new RegExp(first.message.id), 'the conflict names no message');
      }
      assert.equal((await inbox(b, 'bob')).messages?.length, 1);
      assert.equal((await b.events()).filter((e) => e.type === 'message.sent').length, 1);
    });

    test('a text over 8 KiB, an empty text or a bad recipient is refused and nothing is written', async () => {
      const b = board();
      const before = (await b.events()).length;
      for (const bad of [
        { to: 'bob', text: 'x'.repeat(8193) },
        { to: 'bob', text: '€'.repeat(2731) },
        { to: 'bob', text: '' },
        { to: 'not a name', text: 'x' },
        { to: 'bob', text: 'x', task_id: 'nosuch' },
      ]) {
        const err = await b.fail(op.sendMessage, { agent: 'alice', ...bad });
        assert.ok(['invalid_request', 'not_found'].includes(err.code), err.code);
      }
      assert.equal((await b.events()).length, before);
      assert.deepEqual(await sent(b, 'alice'), []);
      assert.deepEqual((await inbox(b, 'bob')).messages, []);
      await send(b, 'alice', 'bob', 'x'.repeat(8192));
    });

    test('a message about a private task of someone else is not_found to its sender and writes nothing', async () => {
      const b = board();
      const task = await b.post('carol', { for: 'bob' });
      const err = await b.fail(op.sendMessage, { agent: 'mallory', to: 'bob', text: 'x', task_id: task.id });
      assert.equal(err.code, 'not_found');
      assert.deepEqual(await sent(b, 'mallory'), []);
      const ok = await send(b, 'carol', 'bob', 'about it', { task_id: task.id });
      assert.equal(ok.task_id, task.id);
      assert.deepEqual(
        (await b.call(op.listMessages, { task_id: task.id })).messages.map((m) => m.id),
        [ok.id],
      );
    });

    test('pending messages: get-and-mark once per message for the stop hook, every unacked one for prime, peek records nothing', async () => {
      const b = board();
      const m1 = await send(b, 'alice', 'bob', 'one');
      const peek = await b.call(op.pendingMessages, { agent: 'bob', via: 'push', peek: true });
      assert.deepEqual(
        peek.messages.map((m) => m.id),
        [m1.id],
      );
      assert.equal(receipt(peek.messages[0], 'bob')?.delivered_at, null);
      const stop = await b.call(op.pendingMessages, { agent: 'bob', via: 'stop' });
      assert.deepEqual(
        stop.messages.map((m) => m.id),
        [m1.id],
      );
      assert.equal(receipt(stop.messages[0], 'bob')?.delivered_via, 'stop');
      assert.deepEqual((await b.call(op.pendingMessages, { agent: 'bob', via: 'stop' })).messages, [], 'never twice');
      const m2 = await send(b, 'alice', 'bob', 'two');
      const prime = await b.call(op.pendingMessages, { agent: 'bob', via: 'prime', all: true });
      assert.deepEqual(
        prime.messages.map((m) => m.id),
        [m2.id, m1.id],
        'unread first',
      );
      assert.equal(prime.unread, 2);
      const pushed = await send(b, 'alice', 'bob', 'three');
      const mark = await b.call(op.pendingMessages, { agent: 'bob', via: 'push', ids: [pushed.id, m1.id] });
      assert.deepEqual(
        mark.messages.map((m) => m.id),
        [pushed.id],
      );
      await inbox(b, 'bob');
      const receipts = await sent(b, 'alice');
      assert.deepEqual(
        receipts.map((m) => [m.text, receipt(m, 'bob')?.delivered_via]),
        [
          ['three', 'push'],
          ['two', 'prime'],
          ['one', 'stop'],
        ],
      );
    });

    test('GET /v1/agents counts each agent’s unacknowledged messages', async () => {
      const b = board();
      await b.post('bob');
      await b.post('carol');
      const m = await send(b, 'alice', 'bob', 'one', { ack_required: true });
      await send(b, 'alice', 'bob', 'two');
      await b.call(op.ackMessage, { message_id: m.id, agent: 'bob' });
      const agents = (await b.call(op.listAgents, {})).agents;
      const unread = Object.fromEntries(agents.map((a) => [a.name, a.unread]));
      assert.deepEqual(unread, { alice: 0, bob: 1, carol: 0 });
    });

    test('an inbox poll that has nothing new to record writes nothing', async () => {
      const b = board();
      await send(b, 'alice', 'bob', 'hi', { ack_required: true });
      const first = await inbox(b, 'bob');
      const shown = (await sent(b, 'alice'))[0];
      b.clock.advance(S);
      const second = await inbox(b, 'bob', first.cursor);
      assert.equal(second.cursor, first.cursor, 'no event was written');
      assert.deepEqual((await sent(b, 'alice'))[0], shown);
    });
  });
}
