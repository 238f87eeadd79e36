import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { invoke } from '../../src/core/invoke.js';
import { operations } from '../../src/core/operations.js';
import { buildHttpApp } from '../../src/server/http/app.js';
import { EventHub } from '../../src/server/http/event-hub.js';
import { type Harness, harness, makeSqliteStore } from '../support/ctx.js';
import { subscribe, waitFor } from './helpers.js';

/** Counts live store subscriptions by wrapping the real store's subscribe (the store itself runs for real). */
function countSubscriptions(h: Harness): () => number {
  let live = 0;
  const real = h.store.subscribe.bind(h.store);
  h.store.subscribe = (listener) => {
    live++;
    const unsubscribe = real(listener);
    return () => {
      live--;
      unsubscribe();
    };
  };
  return () => live;
}

describe('many event streams, one subscription', () => {
  let h: Harness;
  let app: FastifyInstance;
  let url = '';
  let subscriptions: () => number;
  const token = 'hub-test-token-0123456789';
  before(async () => {
    h = await harness(makeSqliteStore);
    subscriptions = countSubscriptions(h);
    let port = 0;
    app = buildHttpApp({ ctx: h.ctx, token, version: 'test', port: () => port });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    url = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await app.close();
    await h.store.close();
  });

  test('a hundred idle streams share one store subscription, all get each event, and closing them releases it', async () => {
    assert.equal(subscriptions(), 0);
    const subs = Array.from({ length: 100 }, () => subscribe({ url, token }, { board: 'many' }));
    await Promise.all(subs.map((s) => s.opened));
    assert.equal(subscriptions(), 1);
    const { task } = await invoke(operations.createTask, h.ctx, { agent: 'a', board: 'many', title: 'for all' });
    await waitFor(() => subs.every((s) => s.events.length === 1), 'every stream to get the event');
    assert.ok(subs.every((s) => s.events[0]?.task_id === task.id));
    for (const s of subs) s.close();
    await waitFor(() => subscriptions() === 0, 'the shared subscription to be released');
  });

  test('idle clients get keep-alive comments from one shared timer, and stop getting them once removed', async () => {
    const hub = new EventHub(h.store, 20);
    let pings = 0;
    const remove = hub.add({ deliver: () => {}, keepAlive: () => pings++, end: () => {} });
    await waitFor(() => pings >= 3, 'three keep-alives');
    remove();
    assert.equal(hub.size, 0);
    const after = pings;
    // With no clients the timer is gone: the next event reaches nobody and nothing is pinged.
    await invoke(operations.createTask, h.ctx, { agent: 'a', board: 'quiet', title: 'unheard' });
    assert.equal(pings, after);
    assert.equal(subscriptions(), 0);
  });
});
