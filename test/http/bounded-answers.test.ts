/**
 * Answers stay small whatever the board holds (issue 25, hole 10): a broadcast to 5,000 agents, the agents
 * of a board of 5,000, a cycle through a 5,000-task chain each answer with counts plus the first items; and
 * a request Node's HTTP parser refuses (bad bytes, an over-long URL) is answered in coord's error shape.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { operations as op } from '../../src/core/operations.js';
import { type HttpHarness, httpHarness } from '../support/http.js';

const MANY = 5000;
/** What "a few kilobytes" means here: an unbounded answer to any of these is 100–550 KB. */
const SMALL = 32 * 1024;

describe('answers are bounded', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
    // 5,000 invented agents seen on the board (each polled its inbox once).
    for (let i = 0; i < MANY; i++) h.ctx.presence.touch(`invented-agent-${i}`, 'crowd', h.clock.now());
  });
  after(() => h.app.close());

  test('a broadcast to 5,000 agents answers with the first receipts and the counts of all', async () => {
    const res = await h.req('POST', '/v1/messages', { agent: 'sender', board: 'crowd', to: '*', text: 'hello all' });
    assert.equal(res.status, 201, res.text);
    assert.ok(res.text.length < SMALL, `${res.text.length} bytes`);
    assert.equal(res.json.message.receipts.length, 50);
    assert.deepEqual(res.json.message.receipt_counts, { recipients: MANY, delivered: 0, acked: 0 });
    const sent = await h.req('GET', '/v1/messages?agent=sender&box=sent&board=crowd');
    assert.ok(sent.text.length < SMALL, `sent box: ${sent.text.length} bytes`);
  });

  test('/v1/agents of a board with 5,000 agents answers with the first 50 and how many there are', async () => {
    const res = await h.req('GET', '/v1/agents?board=crowd');
    assert.equal(res.status, 200);
    assert.ok(res.text.length < SMALL, `${res.text.length} bytes`);
    assert.equal(res.json.agents.length, 50);
    assert.equal(res.json.total, MANY + 1);
  });

  test('a cycle through a 5,000-task chain is refused naming its ends and its length, not every task', async () => {
    let prev: string | undefined;
    const ids: string[] = [];
    for (let i = 0; i < MANY; i++) {
      const t = (await h.call(op.createTask, {
        agent: 'planner',
        board: 'chain',
        title: `step ${i}`,
        ...(prev ? { blocked_by: [prev] } : {}),
      })) as { task: { id: string } };
      prev = t.task.id;
      ids.push(prev);
    }
    const res = await h.req('POST', `/v1/tasks/${ids[0]}/deps`, { agent: 'planner', add: [ids.at(-1)] });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json.error.code, 'dependency_cycle');
    assert.ok(res.text.length < SMALL, `${res.text.length} bytes`);
    assert.equal(res.json.error.cycle_length, MANY + 1);
    assert.match(res.json.error.message, /\(5000 tasks\)/);
  });
});

describe("requests Node's parser refuses", () => {
  let h: HttpHarness;
  let port: number;
  before(async () => {
    h = await httpHarness();
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as { port: number }).port;
  });
  after(() => h.app.close());

  /** Write raw bytes, read the whole answer: status and JSON body. */
  const raw = (bytes: string): Promise<{ status: number; body: any }> =>
    new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1');
      let text = '';
      s.on('data', (d) => {
        text += d;
      });
      s.on('error', () => {}); // the server destroys the socket after answering
      s.on('close', () => {
        const [head = '', ...rest] = text.split('\r\n\r\n');
        const status = Number(head.split(' ')[1]);
        try {
          resolve({ status, body: JSON.parse(rest.join('\r\n\r\n')) });
        } catch (e) {
          reject(new Error(`not JSON: ${text.slice(0, 300)} (${e})`));
        }
      });
      s.write(bytes);
    });

  test('bytes that are not HTTP answer 400 invalid_request in coord’s shape', async () => {
    const r = await raw('GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad\x01Header: x\r\n\r\n');
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(typeof r.body.error.message, 'string');
  });

  test('an over-long URL answers 431 too_large in coord’s shape', async () => {
    const r = await raw(`GET /v1/tasks?x=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    assert.equal(r.status, 431);
    assert.equal(r.body.error.code, 'too_large');
  });
});
