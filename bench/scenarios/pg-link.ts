/**
 * PostgreSQL claim + complete across a simulated 1 ms link, where round trips decide everything.
 * The issue asks for a network namespace with `tc netem`; this machine's kernel has no sch_netem ("Specified
 * qdisc kind is unknown", no modules to load), so the link is simulated in user space instead: a TCP relay on
 * loopback (lib: below) in front of the database holds every chunk going to the database for 1 ms (Node's
 * timer granularity; the answers come back at once), so each round trip costs ≥ 1 ms more. coord's daemon and
 * the bare loop both reach the database only through it; the workers' HTTP to the daemon does not cross it.
 * coord: 1 daemon (dist/) + 4 HTTP workers (claim-next + submit), bench/coord/pg-contender.ts.
 * floor: the bare `pg` loop (floors/pg-update-loop.ts) through the same relay.
 * target: coord ≥ 70 % of the bare loop over the same link.
 * Skipped (saying why) without PostgreSQL.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { coordPgDrain } from '../coord/pg-contender.js';
import { runPgLoop } from '../floors/pg-update-loop.js';
import { pick } from '../lib/config.js';
import { pgDatabase, pgUnavailable } from '../lib/pg.js';
import { WORKERS } from '../lib/pg-contenders.js';
import { defineScenario } from '../lib/types.js';

const JOBS = pick(1_000, 5_000);
const MAX_S = pick(3, 15);
export const LINK_DELAY_MS = 1;

let relay: Server | undefined;
let relayPort = 0;
const open = new Set<Socket>();

/** Writes to `dst` what arrives, each chunk `ms` later than it came, in order. */
function delayedWriter(dst: Socket, ms: number): (chunk: Buffer) => void {
  const queue: { at: number; chunk: Buffer }[] = [];
  let scheduled = false;
  const flush = () => {
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.at <= now) dst.write(queue.shift()!.chunk);
    scheduled = queue.length > 0;
    if (scheduled) setTimeout(flush, queue[0]!.at - now);
  };
  return (chunk) => {
    queue.push({ at: performance.now() + ms, chunk });
    if (scheduled) return;
    scheduled = true;
    setTimeout(flush, ms);
  };
}

/** The link: a relay on 127.0.0.1 to the database, delaying what goes to it; resolves with its port. */
function startRelay(pgPort: number): Promise<number> {
  relay = createServer((client) => {
    client.setNoDelay(true);
    const db = createConnection({ host: '127.0.0.1', port: pgPort }, () => db.setNoDelay(true));
    client.on('data', delayedWriter(db, LINK_DELAY_MS));
    db.pipe(client);
    open.add(client).add(db);
    const end = () => {
      open.delete(client);
      open.delete(db);
      client.destroy();
      db.destroy();
    };
    client.on('error', end).on('close', end);
    db.on('error', end).on('close', end);
  });
  return new Promise((resolve, reject) => {
    relay?.once('error', reject);
    relay?.listen(0, '127.0.0.1', () => {
      const a = relay?.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    });
  });
}

/** A fresh database: its direct URL (to seed and count) and the same database across the link. */
async function linkedDatabase(): Promise<{ url: string; linkedUrl: string }> {
  const url = await pgDatabase();
  const u = new URL(url);
  u.port = String(relayPort);
  return { url, linkedUrl: u.toString() };
}

export default defineScenario({
  name: `PostgreSQL claim + complete over a ${LINK_DELAY_MS} ms link, ${WORKERS} workers, 1 daemon`,
  metric: 'jobs/s',
  unit: 'jobs/s',
  better: 'higher',
  target: { kind: 'ratio_to_floor_min', value: 0.7, extra_max: { round_trips_per_job: 2 } },
  note: `${JOBS} backlog; coord (1 daemon, ${WORKERS} HTTP workers, at most ${MAX_S} s) and the bare pg loop (${WORKERS} connections) reach the database only through a relay that holds every chunk to it for ${LINK_DELAY_MS} ms (a user-space link: this kernel has no netem); the workers' HTTP to the daemon does not cross it`,
  available: pgUnavailable,
  async setup() {
    relayPort = await startRelay(Number(new URL(await pgDatabase()).port));
  },
  async teardown() {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
  },
  contenders: {
    coord: async () => coordPgDrain(1, JOBS, WORKERS, MAX_S, await linkedDatabase()),
    floor: async () => runPgLoop({ url: (await linkedDatabase()).linkedUrl, jobs: JOBS, workers: WORKERS }),
  },
});
