/**
 * SPEC §16 "A grant is one board": every tool call of a connector acts on its board only — a task, lock or
 * message of another board is not_found to it, by id too — and no path of the owner's machine reaches it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONFINED_FIELDS, withoutLocalPaths } from '../../src/core/connectors/confine.js';
import { tools } from '../../src/server/mcp/tools.js';
import { RateLimit } from '../../src/server/oauth/rate-limit.js';
import { connectorSession, grantConnector, SITE } from '../support/connector.js';
import { makeSqliteStore } from '../support/ctx.js';
import { type HttpHarness, httpHarness } from '../support/http.js';

const AGENT = 'claude#k3x9';
const TREE = '/home/owner/work/wt-A';

describe('a connector acts on its own board only', () => {
  let h: HttpHarness;
  let chat: Awaited<ReturnType<typeof connectorSession>>;
  let mine: string;
  let theirs: string;
  before(async () => {
    const big = () => new RateLimit(10_000);
    h = await httpHarness(makeSqliteStore, {
      publicUrl: SITE,
      oauthLimits: { perAddress: big(), perClient: big(), consent: big() },
    });
    // The MCP SDK's bearer check compares a token's expiry with the real time: start the hand clock there.
    h.clock.advance(Date.now() - h.clock.now());
    const post = async (board: string, title: string) =>
      (await h.req('POST', '/v1/tasks', { agent: 'owner', board, title })).json.task.id as string;
    mine = await post('main', 'on the connector board');
    theirs = await post('private', 'on another board');
    chat = await connectorSession(h, await grantConnector(h, 'main', AGENT));
  });
  after(() => h.app.close());

  test('a task of another board is not_found to it by id: claim, show, cancel, deps, notes, messages', async () => {
    for (const [tool, args] of [
      ['claim_task', { task_id: theirs }],
      ['show_task', { task_id: theirs }],
      ['cancel_task', { task_id: theirs }],
      ['set_deps', { task_id: mine, add: [theirs] }],
      ['add_note', { task_id: theirs, text: 'hello' }],
      ['post_task', { title: 'after theirs', blocked_by: [theirs] }],
      ['post_plan', { tasks: [{ ref: 'a', title: 'after theirs', blocked_by: [theirs] }] }],
      ['send_message', { to: 'owner', text: 'about it', task_id: theirs }],
    ] as const) {
      const r = await chat.call(tool, args);
      assert.ok(r.isError, `${tool}: ${r.text}`);
      assert.match(r.text, /^not_found/, `${tool}: ${r.text}`);
    }
    const t = (await h.req('GET', `/v1/tasks/${theirs}`)).json.task;
    assert.equal(t.state, 'queued', 'nothing changed on the other board');
    assert.equal(t.claimed_by, null);
    const own = await chat.call('claim_task', { task_id: mine });
    assert.ok(!own.isError, own.text);
  });

  test('a lock and a message of another board are not_found to it', async () => {
    const lock = await h.req('POST', '/v1/locks', { agent: 'bob', board: 'private', resources: ['src/a.ts'] });
    assert.equal(lock.status, 201, lock.text);
    const r = await chat.call('unlock_files', { lock_id: lock.json.lock_id });
    assert.match(r.text, /^not_found/);
    const live = (await h.req('GET', '/v1/locks?board=private')).json.locks;
    assert.deepEqual(
      live.map((l: { lock_id: string }) => l.lock_id),
      [lock.json.lock_id],
      'the lock is still held',
    );
    // Same agent name, another board: not the connector's message.
    const msg = await h.req('POST', '/v1/messages', { agent: 'owner', board: 'private', to: AGENT, text: 'psst' });
    assert.equal(msg.status, 201, msg.text);
    const ack = await chat.call('ack_message', { message_id: msg.json.message.id });
    assert.match(ack.text, /^not_found/);
  });

  test("no absolute path of the owner's machine reaches it (who, show_task)", async () => {
    await h.req('POST', `/v1/tasks/${mine}/notes`, { agent: 'alice', text: `left uncommitted in ${TREE}/src/c.ts` });
    await h.store.seenIn('main', { agent: 'alice', worktree: TREE, branch: 'feat', head: null });
    await h.req('POST', '/v1/locks', { agent: 'alice', board: 'main', resources: ['src/c.ts'] });
    const who = await chat.call('who');
    assert.match(who.text, /alice/);
    assert.match(who.text, /wt-A/, 'the work tree is named by its folder');
    const shown = await chat.call('show_task', { task_id: mine });
    for (const r of [who, shown]) assert.ok(!r.raw.includes('/home/owner'), r.raw);
  });
});

describe('confinement covers every tool', () => {
  /** Fields that name something of one task the caller already named (its claim, its artifact). */
  const OWN = new Set(['claim_id', 'artifact_id', 'idempotency_key']);
  const fieldsOf = (schema: unknown, out = new Set<string>(), depth = 0): Set<string> => {
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def || depth > 6) return out;
    if (def.type === 'object') {
      for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) {
        out.add(k);
        fieldsOf(v, out, depth + 1);
      }
    }
    for (const inner of [def.innerType, def.element, def.in]) if (inner) fieldsOf(inner, out, depth + 1);
    return out;
  };

  test('every tool input field that names a task, lock or message by id is checked against the board', () => {
    const ids = /(_id|^ids|^parent|^blocked_by|^add|^remove)$/;
    const seen = new Set<string>();
    for (const tool of tools) {
      for (const f of fieldsOf(tool.input)) {
        seen.add(f);
        if (!ids.test(f) || OWN.has(f)) continue;
        assert.ok(CONFINED_FIELDS.has(f), `${tool.name}.${f} names something by id but is not confined`);
      }
    }
    for (const f of ['task_id', 'lock_id', 'message_id', 'blocked_by', 'parent', 'add']) assert.ok(seen.has(f), f);
  });

  test('an absolute path becomes its last segment; URLs, keys and branches stay', () => {
    assert.equal(withoutLocalPaths('in /home/me/wt-a [feat/x]'), 'in wt-a [feat/x]');
    assert.equal(withoutLocalPaths('"/home/me/wt-a/src/c.ts", file:///tmp/x/y'), '"c.ts", y');
    assert.equal(
      withoutLocalPaths('https://coord.example.test/mcp src/a.ts lib/ port:5173'),
      'https://coord.example.test/mcp src/a.ts lib/ port:5173',
    );
  });
});
