/**
 * The event stream under concurrent writers on two daemons (issue 36, SPEC §4 events, §8): eight writers, four
 * per daemon, post, claim, submit, release and cancel at random on one board, while one SSE reader follows the
 * board and now and then drops its stream and resumes with Last-Event-ID on the other daemon. Checked at the
 * end against the event log: the reader saw every event exactly once, in the log's order, its ids strictly
 * increasing — so a cursor (Last-Event-ID, `since`) never skips or repeats one. Seeded: a failure names its seed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CoordEvent } from '../../src/core/model.js';
import { type Subscription, subscribe, waitFor } from '../live/helpers.js';
import type { SpawnedDaemon } from '../support/daemon.js';
import { type Cluster, startCluster } from './cluster.js';

const WRITERS = 8;
const STEPS = 25;
const BOARD = 'order';

/** mulberry32: a small seeded generator, so a failing interleaving of choices can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('postgres: the event stream across two daemons', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2);
  });
  after(() => c?.stop());

  const ok = async (d: SpawnedDaemon, method: string, path: string, json?: unknown) => {
    const res = await c.call(d, method, path, json);
    if (res.status >= 300 && res.status !== 204 && res.status !== 409)
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };

  async function writer(d: SpawnedDaemon, w: number, random: () => number): Promise<void> {
    const agent = `writer${w}`;
    for (let step = 0; step < STEPS; step++) {
      const r = random();
      if (r < 0.4) {
        await ok(d, 'POST', '/v1/tasks', { agent, board: BOARD, title: `w${w} s${step}` });
        continue;
      }
      const got = await ok(d, 'POST', '/v1/claim', { agent, board: BOARD, lease_s: 60 });
      if (got.status !== 200) continue;
      const { task, claim_id } = got.body as { task: { id: string }; claim_id: string };
      const then = random();
      if (then < 0.6) {
        const status = then < 0.5 ? 'completed' : 'failed';
        await ok(d, 'POST', `/v1/tasks/${task.id}/submit`, { claim_id, status, result: { w, step } });
      } else if (then < 0.85) await ok(d, 'POST', `/v1/tasks/${task.id}/release`, { claim_id });
      else await ok(d, 'POST', `/v1/tasks/${task.id}/cancel`, { agent });
    }
  }

  async function log(d: SpawnedDaemon): Promise<CoordEvent[]> {
    const all: CoordEvent[] = [];
    for (;;) {
      const since = all.at(-1)?.seq ?? 0;
      const page = (await c.call(d, 'GET', `/v1/events?format=json&board=${BOARD}&since=${since}&limit=500`)).body
        .events as CoordEvent[];
      all.push(...page);
      if (page.length < 500) return all;
    }
  }

  test('eight writers on two daemons: one reader resuming by Last-Event-ID across daemons sees every event once, in cursor order', async () => {
    const seed = Number(process.env.COORD_TEST_SEED ?? Date.now() % 100_000);
    const daemons = c.daemons as [SpawnedDaemon, SpawnedDaemon];
    const seen: CoordEvent[] = [];
    let sub: Subscription | null = null;
    let on = 0;
    let writing = true;
    // The reader: one stream at a time; on a switch it resumes on the other daemon from the last id it saw.
    const follow = async () => {
      // From the start of the board's log until the reader has seen an event: a first window that saw nothing
      // (its events still on their way) must not make the next stream start at the live tail.
      const from = seen.at(-1)?.seq ?? 0;
      const next = subscribe(daemons[on]!, { board: BOARD, lastEventId: from });
      await next.opened;
      sub = next;
      return next.events;
    };
    const streams: CoordEvent[][] = [];
    streams.push(await follow());
    const reader = (async () => {
      const random = rng(seed + 1);
      while (writing) {
        await new Promise((r) => setTimeout(r, 20 + random() * 80));
        if (!writing) break;
        // Take what this stream delivered so far, drop it, resume elsewhere.
        (sub as Subscription | null)?.close();
        seen.push(...streams.at(-1)!);
        on = 1 - on;
        streams.push(await follow());
      }
    })();
    try {
      await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(daemons[w % 2]!, w, rng(seed * 31 + w))));
    } finally {
      writing = false;
      await reader;
    }
    const expected = await log(daemons[0]);
    assert.ok(expected.length > WRITERS * STEPS * 0.4, `seed ${seed}: the writers wrote (${expected.length} events)`);
    // The last stream runs until it has caught up with the log.
    const last = streams.at(-1)!;
    const lastSeq = expected.at(-1)!.seq;
    await waitFor(() => [...seen, ...last].some((e) => e.seq === lastSeq), `seed ${seed}: the reader reaching the end`);
    (sub as Subscription | null)?.close();
    seen.push(...last);
    const ids = seen.map((e) => e.seq);
    for (let i = 1; i < ids.length; i++)
      assert.ok(ids[i]! > ids[i - 1]!, `seed ${seed}: ids strictly increase (${ids[i - 1]} then ${ids[i]} at ${i})`);
    assert.deepEqual(
      seen.map((e) => `${e.seq} ${e.type} ${e.task_id}`),
      expected.map((e) => `${e.seq} ${e.type} ${e.task_id}`),
      `seed ${seed}: the reader saw the log, every event once, in order`,
    );
    assert.ok(streams.length > 2, `seed ${seed}: the reader resumed on the other daemon (${streams.length} streams)`);
  });
});
