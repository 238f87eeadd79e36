import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuthCodeRecord, TokenPair } from '../../../src/core/connectors/connector-ports.js';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, S } from './board.js';

const pair = (n: string, now: number): TokenPair => ({
  access_hash: `a-${n}`,
  access_expires_at: now + 3600 * S,
  refresh_hash: `r-${n}`,
  refresh_expires_at: now + 30 * 24 * 3600 * S,
});

const code = (hash: string, now: number, client_id = 'cl1'): AuthCodeRecord => ({
  hash,
  client_id,
  redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
  challenge: 'ch',
  resource: 'https://coord.example/mcp',
  board: 'main',
  agent: 'claude#k3x9',
  expires_at: now + 60 * S,
});

async function granted(b: Board, n = '1') {
  const now = b.clock.now();
  await b.store.registerClient(
    {
      client_id: `cl${n}`,
      secret_hash: null,
      name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      metadata: { client_name: 'Claude' },
    },
    100,
  );
  assert.equal((await b.store.approve({ connect_hash: null, code: code(`c${n}`, now, `cl${n}`) })).ok, true);
  const out = await b.store.redeemCode({
    hash: `c${n}`,
    client_id: `cl${n}`,
    grant_id: `g${n}`,
    tokens: pair(n, now),
    check: () => null,
  });
  assert.ok(out.ok);
  return out.grant;
}

export function connectorsContract(make: MakeStore): void {
  describe('remote connectors (grants, codes, tokens)', () => {
    const board = freshBoard(make);

    test('a redeemed code makes a grant whose access token names it, and a connector.granted event', async () => {
      const b = board();
      const g = await granted(b);
      assert.equal(g.agent, 'claude#k3x9');
      assert.equal((await b.store.grantOfAccessToken('a-1'))?.id, 'g1');
      assert.equal(await b.store.grantOfAccessToken('r-1'), null, 'a refresh token is no access token');
      assert.deepEqual(
        (await b.events()).filter((e) => e.type.startsWith('connector.')).map((e) => [e.type, e.agent]),
        [['connector.granted', 'claude#k3x9']],
      );
      assert.deepEqual(
        (await b.store.listGrants()).map((x) => x.id),
        ['g1'],
      );
    });

    test('registrations that led to no grant are capped, and dropped a day later; a granted client stays', async () => {
      const b = board();
      await granted(b, '1');
      const reg = (id: string) =>
        b.store.registerClient({ client_id: id, secret_hash: null, name: id, redirect_uris: [], metadata: {} }, 2);
      assert.ok(await reg('u1'));
      assert.ok(await reg('u2'));
      assert.equal(await reg('u3'), null, 'two wait already');
      b.clock.advance(24 * 3600 * S);
      assert.ok(await reg('u3'), 'the day-old ones were dropped');
      assert.equal(await b.store.getClient('u1'), null);
      assert.ok(await b.store.getClient('cl1'), 'a client with a grant is never dropped');
    });

    test('a one-time consent code is spent once and not after it expired; the newest prefills the page', async () => {
      const b = board();
      const now = b.clock.now();
      assert.equal(await b.store.pendingConnect(), null);
      await b.store.addConnectCode({ hash: 'k1', board: 'main', agent: null, expires_at: now + 600 * S });
      await b.store.addConnectCode({ hash: 'k2', board: 'main', agent: 'web', expires_at: now + 601 * S });
      assert.deepEqual(await b.store.pendingConnect(), { board: 'main', agent: 'web' });
      assert.equal((await b.store.approve({ connect_hash: 'k1', code: code('c1', now) })).ok, true);
      assert.equal((await b.store.approve({ connect_hash: 'k1', code: code('c2', now) })).ok, false);
      b.clock.advance(602 * S);
      assert.equal((await b.store.approve({ connect_hash: 'k2', code: code('c3', b.clock.now()) })).ok, false);
      assert.equal(await b.store.pendingConnect(), null);
    });

    test('a live consent code is spent after 5 wrong answers, whichever code they aimed at', async () => {
      const b = board();
      const now = b.clock.now();
      await b.store.addConnectCode({ hash: 'k1', board: 'main', agent: null, expires_at: now + 600 * S });
      for (let i = 0; i < 4; i++) {
        assert.equal((await b.store.approve({ connect_hash: `wrong${i}`, code: code(`w${i}`, now) })).ok, false);
      }
      await b.store.addConnectCode({ hash: 'k2', board: 'main', agent: null, expires_at: now + 600 * S });
      assert.equal((await b.store.approve({ connect_hash: 'wrong4', code: code('w4', now) })).ok, false);
      assert.equal((await b.store.approve({ connect_hash: 'k1', code: code('c1', now) })).ok, false, 'k1 is spent');
      assert.equal((await b.store.approve({ connect_hash: 'k2', code: code('c2', now) })).ok, true, 'k2 had 2 wrong');
    });

    test('a code presented twice is refused and revokes the grant it made', async () => {
      const b = board();
      await granted(b);
      const again = await b.store.redeemCode({
        hash: 'c1',
        client_id: 'cl1',
        grant_id: 'gx',
        tokens: pair('x', b.clock.now()),
        check: () => null,
      });
      assert.deepEqual(again, { ok: false, reason: 'reused', revoked: 'g1' });
      assert.equal(await b.store.grantOfAccessToken('a-1'), null);
    });

    test('a code failing its check, expired or for another client is spent and grants nothing', async () => {
      const b = board();
      const now = b.clock.now();
      await b.store.registerClient(
        { client_id: 'cl1', secret_hash: null, name: 'C', redirect_uris: [], metadata: {} },
        100,
      );
      await b.store.approve({ connect_hash: null, code: code('c1', now) });
      await b.store.approve({ connect_hash: null, code: code('c2', now) });
      const r = (h: string, client_id = 'cl1') =>
        b.store.redeemCode({ hash: h, client_id, grant_id: h, tokens: pair(h, now), check: () => 'bad verifier' });
      assert.deepEqual(await r('c1', 'other'), { ok: false, reason: 'wrong_client' });
      assert.deepEqual(await r('c1'), { ok: false, reason: 'refused', why: 'bad verifier' });
      assert.deepEqual(await r('c1'), { ok: false, reason: 'reused', revoked: null });
      b.clock.advance(61 * S);
      assert.deepEqual(await r('c2'), { ok: false, reason: 'expired' });
      assert.deepEqual(await b.store.listGrants(), []);
    });

    test('a refresh token rotates once; presented again it revokes the whole grant', async () => {
      const b = board();
      await granted(b);
      const rot = await b.store.rotateRefresh({ hash: 'r-1', client_id: 'cl1', tokens: pair('2', b.clock.now()) });
      assert.ok(rot.ok);
      assert.equal(await b.store.grantOfAccessToken('a-1'), null, 'the old access token ended with the rotation');
      assert.equal((await b.store.grantOfAccessToken('a-2'))?.id, 'g1');
      const replay = await b.store.rotateRefresh({ hash: 'r-1', client_id: 'cl1', tokens: pair('3', b.clock.now()) });
      assert.deepEqual(replay, { ok: false, reason: 'reused', revoked: 'g1' });
      assert.equal(await b.store.grantOfAccessToken('a-2'), null);
      assert.deepEqual(
        (await b.store.rotateRefresh({ hash: 'r-2', client_id: 'cl1', tokens: pair('4', b.clock.now()) })).ok,
        false,
      );
      const revoked = (await b.events()).filter((e) => e.type === 'connector.revoked');
      assert.equal(revoked.length, 1);
    });

    test('an access token expires; revoking the grant or deleting the client ends it at once', async () => {
      const b = board();
      await granted(b, '1');
      await granted(b, '2');
      b.clock.advance(3601 * S);
      assert.equal(await b.store.grantOfAccessToken('a-1'), null);
      const rot = await b.store.rotateRefresh({ hash: 'r-1', client_id: 'cl1', tokens: pair('1b', b.clock.now()) });
      assert.ok(rot.ok);
      assert.ok(await b.store.grantOfAccessToken('a-1b'));
      assert.equal((await b.store.revokeGrant({ id: 'g1', delete_client: false }))?.revoked_at !== null, true);
      assert.equal(await b.store.grantOfAccessToken('a-1b'), null);
      await b.store.revokeGrant({ id: 'g2', delete_client: true });
      assert.equal(await b.store.getClient('cl2'), null);
      assert.ok(await b.store.getClient('cl1'), 'revoking a grant keeps its client registered');
      assert.equal(await b.store.revokeGrant({ id: 'nope', delete_client: false }), null);
    });
  });
}
