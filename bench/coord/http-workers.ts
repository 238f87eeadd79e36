/**
 * Load for coord's PostgreSQL rows, in its own process: W workers, each on one
 * keep-alive connection to one of the daemons (worker w → daemon w mod n), each
 * looping POST /v1/claim → POST /v1/tasks/:id/submit until claim-next answers 204.
 * With `maxS`, workers stop claiming after that long (a slow contender then measures its
 * rate over part of the backlog, as pg-boss fetch() does). Every task claimed must be
 * claimed exactly once, and without `maxS` every task must be claimed, or the run fails.
 * Result: jobs/s, and the daemons' round trips to their database during the timed drain (GET /v1/health
 * `round_trips`, read after the untimed warm-up and again at the end; null for a store that does not count).
 */
import { Agent, request } from 'node:http';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/coord/http-workers.ts';

export interface HttpWorkersArgs {
  targets: { url: string; token: string }[];
  workers: number;
  /** The backlog: exactly this many distinct tasks must be claimed and submitted (all of them unless maxS cut the run short). */
  expect: number;
  /** Stop claiming after this many seconds. */
  maxS?: number;
}

export interface HttpWorkersResult {
  rate: number;
  roundTrips: number | null;
}

export const runHttpWorkers = (a: HttpWorkersArgs): Promise<HttpWorkersResult> =>
  runChild<HttpWorkersResult>(FILE, a, { timeoutMs: 600_000 });

/** One request on a keep-alive agent, with the daemon's token; the body as text. (pg-diagnose.ts uses it too.) */
export function call(
  agent: Agent,
  target: { url: URL; token: string },
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: target.url.hostname,
        port: target.url.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${target.token}`,
          ...(text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {}),
        },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          out += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: out }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

childMain<HttpWorkersArgs>(FILE, async (a) => {
  const targets = a.targets.map((t) => ({ url: new URL(t.url), token: t.token }));
  const workers = Array.from({ length: a.workers }, (_, w) => ({
    name: `worker-${w}`,
    conn: new Agent({ keepAlive: true, maxSockets: 1 }),
    target: targets[w % targets.length]!,
  }));
  // Untimed: open every connection (and the daemons' pools), as the floor connects before timing.
  await Promise.all(workers.map((w) => call(w.conn, w.target, 'GET', `/v1/inbox?agent=${w.name}`)));
  const health = new Agent({ keepAlive: false });
  const roundTrips = async (): Promise<number | null> => {
    let n = 0;
    for (const t of targets) {
      const h = JSON.parse((await call(health, t, 'GET', '/v1/health')).body) as { round_trips?: { queries: number } };
      if (!h.round_trips) return null;
      n += h.round_trips.queries;
    }
    return n;
  };
  const tripsBefore = await roundTrips();
  const claimed: string[] = [];
  const t0 = performance.now();
  const until = t0 + (a.maxS ?? Number.POSITIVE_INFINITY) * 1000;
  let cut = false;
  await Promise.all(
    workers.map(async (w) => {
      for (;;) {
        if (performance.now() >= until) {
          cut = true;
          return;
        }
        const c = await call(w.conn, w.target, 'POST', '/v1/claim', { agent: w.name, lease_s: 300 });
        if (c.status === 204) return;
        if (c.status !== 200) throw new Error(`claim-next answered ${c.status}: ${c.body.slice(0, 300)}`);
        const grant = JSON.parse(c.body) as { task: { id: string }; claim_id: string };
        const s = await call(w.conn, w.target, 'POST', `/v1/tasks/${grant.task.id}/submit`, {
          claim_id: grant.claim_id,
          status: 'completed',
          result: { ok: true },
        });
        if (s.status !== 200) throw new Error(`submit answered ${s.status}: ${s.body.slice(0, 300)}`);
        claimed.push(grant.task.id);
      }
    }),
  );
  const rate = claimed.length / ((performance.now() - t0) / 1000);
  const tripsAfter = await roundTrips();
  for (const w of workers) w.conn.destroy();
  const distinct = new Set(claimed).size;
  if (distinct !== claimed.length || (cut ? claimed.length > a.expect : claimed.length !== a.expect))
    throw new Error(`completed ${claimed.length} (${distinct} distinct) of ${a.expect}`);
  return { rate, roundTrips: tripsBefore === null || tripsAfter === null ? null : tripsAfter - tripsBefore };
});
