/** Notes and messages over HTTP (SPEC §12), in process. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpHarness, httpHarness } from '../support/http.js';

describe('HTTP: notes and messages', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());

  test('a note answers 201 {note}; GET /v1/tasks/:id carries notes and notes_count', async () => {
    const { json } = await h.req('POST', '/v1/tasks', { title: 'noted', agent: 'alice', board: 'n' });
    const note = await h.req('POST', `/v1/tasks/${json.task.id}/notes`, { agent: 'bob', text: 'hello' });
    assert.equal(note.status, 201);
    assert.deepEqual(Object.keys(note.json.note).sort(), ['agent', 'at', 'id', 'task_id', 'text']);
    const shown = await h.req('GET', `/v1/tasks/${json.task.id}`);
    assert.equal(shown.json.task.notes_count, 1);
    assert.equal(shown.json.task.notes[0].text, 'hello');
  });

  test('send answers 201 {message}, a replay 200; GET box=sent has receipts; ack is idempotent; others get 404', async () => {
    const body = { agent: 'alice', to: 'bob', text: 'hi', board: 'm', idempotency_key: 'k', ack_required: true };
    const sent = await h.req('POST', '/v1/messages', body);
    assert.equal(sent.status, 201);
    const id = sent.json.message.id;
    assert.equal((await h.req('POST', '/v1/messages', body)).status, 200);
    const inbox = await h.req('GET', '/v1/messages?agent=bob&board=m');
    assert.equal(inbox.json.messages[0].receipts[0].delivered_via, 'inbox');
    const box = await h.req('GET', '/v1/messages?agent=alice&box=sent&board=m');
    assert.equal(box.json.messages[0].receipts[0].agent, 'bob');
    assert.equal((await h.req('POST', `/v1/messages/${id}/ack`, { agent: 'bob' })).json.acked, true);
    assert.equal((await h.req('POST', `/v1/messages/${id}/ack`, { agent: 'bob' })).json.acked, false);
    assert.equal((await h.req('POST', `/v1/messages/${id}/ack`, { agent: 'eve' })).status, 404);
    assert.equal((await h.req('GET', `/v1/messages/${id}?agent=eve`)).status, 404);
    const big = await h.req('POST', '/v1/messages', { ...body, idempotency_key: undefined, text: 'x'.repeat(8193) });
    assert.equal(big.status, 400);
    assert.match(big.json.error.message, /8192 bytes/);
  });

  test('the inbox text lists a message first, and GET /v1/agents counts unread', async () => {
    await h.req('POST', '/v1/tasks', { title: 'a task', agent: 'carol', board: 't' });
    await h.req('POST', '/v1/messages', { agent: 'carol', to: 'dave', text: 'look at #1', board: 't' });
    const text = await h.req('GET', '/v1/inbox?agent=dave&board=t&format=text');
    assert.match(text.text, /^1 message, 1 to claim · cursor \d+\nmsg m\w+ from carol \d+s: look at #1\n#/);
    const agents = await h.req('GET', '/v1/agents?board=t');
    assert.equal(agents.json.agents.find((a: { name: string }) => a.name === 'dave')?.unread, 1);
  });

  test('the OpenAPI document lists every route of §12', async () => {
    const { json } = await h.req('GET', '/v1/openapi.json');
    for (const path of ['/v1/tasks/{id}/notes', '/v1/messages', '/v1/messages/{id}/ack', '/v1/messages/pending']) {
      assert.ok(json.paths[path], path);
    }
  });
});
