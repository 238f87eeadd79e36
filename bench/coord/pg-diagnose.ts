/**
 * Where the time of a PostgreSQL job goes (not part of `npm run bench`): one embedded PostgreSQL with
 * pg_stat_statements, then in turn the bare floor loop (floors/pg-update-loop.ts's statements, in this
 * process) and coord (1 daemon from dist/, 4 HTTP workers in this process) drain the same backlog. For each:
 * jobs/s, CPU-seconds per job of every process (this process = the workers / the floor loop, the daemon,
 * the postgres backends and the rest of the server), per-request latency (p50/p90), and the statements
 * PostgreSQL spent its time on (pg_stat_statements, nested statements included).
 *
 *   node --import tsx bench/coord/pg-diagnose.ts [jobs=20000] [warmup=2000] [--prof] [--link]
 *
 * --daemons=N (default 1): coord's workers split across N daemons (worker w → daemon w mod N), as in the bench.
 * DIAG_SQL=<file>: SQL run on coord's database after seeding (e.g. an older version of a function, for an A/B).
 * --workers=N (default 4) sets the number of workers (floor connections) for both.
 * --prof runs the daemon with --cpu-prof (profile in bench/.cache/prof/pg/); --link puts a 1 ms relay
 * (as pg-link.ts) between the daemon / floor and the database.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent } from 'node:http';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../../test/support/postgres.js';
import { PG_FLOOR_DDL, PG_FLOOR_SQL } from '../floors/pg-update-loop.js';
import { repoPath } from '../lib/child.js';
import { topFrames } from '../lib/cpu-profile.js';
import { startCoordDaemon } from './daemon.js';
import { call } from './http-workers.js';
import { FAR_EXPIRY } from './schema.js';

const argv = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const JOBS = Number(argv[0] ?? 20_000);
const WARMUP = Number(argv[1] ?? 2_000);
const PROF = process.argv.includes('--prof');
const LINK = process.argv.includes('--link');
const DAEMONS = Number(process.argv.find((a) => a.startsWith('--daemons='))?.slice(10) ?? 1);
const WORKERS = Number(process.argv.find((a) => a.startsWith('--workers='))?.slice(10) ?? 4);
const TICK = 100; // USER_HZ

/** utime + stime in seconds of every live process, by pid, with its command line. */
interface Proc {
  cpu: number;
  cmd: string;
  ppid: number;
  /** Context switches: voluntary (it waited) and involuntary (it was preempted). */
  vol: number;
  invol: number;
}
function cpuByPid(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const status = readFileSync(`/proc/${d}/status`, 'utf8');
      const n = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      out.set(Number(d), {
        cpu: (Number(f[11]) + Number(f[12])) / TICK,
        cmd,
        ppid: Number(f[1]),
        vol: n('voluntary_ctxt_switches'),
        invol: n('nonvoluntary_ctxt_switches'),
      });
    } catch {
      // gone
    }
  }
  return out;
}

const listeners = new Set<number>();
function classify(cmd: string, pid: number, daemonPid: number | undefined): string {
  if (listeners.has(pid)) return 'postgres LISTEN backend';
  if (pid === process.pid) return 'this process (workers / floor loop)';
  if (pid === daemonPid) return 'coord daemon';
  if (cmd.startsWith('postgres: ') && / (idle|SELECT|UPDATE|COMMIT|BEGIN|INSERT|LISTEN|idle in)/.test(cmd))
    return 'postgres backends';
  if (cmd.startsWith('postgres')) return 'postgres other (walwriter, …)';
  if (cmd.includes('bin/coord.js')) return 'coord daemon';
  return 'other';
}

function cpuDelta(a: ReturnType<typeof cpuByPid>, b: ReturnType<typeof cpuByPid>, daemonPid?: number) {
  const by: Record<string, { cpu: number; vol: number; invol: number }> = {};
  for (const [pid, p] of b) {
    const was = a.get(pid);
    const before = was?.cpu ?? 0;
    const k = classify(p.cmd, pid, daemonPid);
    by[k] ??= { cpu: 0, vol: 0, invol: 0 };
    const e = by[k];
    e.cpu += p.cpu - before;
    e.vol += p.vol - (was?.vol ?? 0);
    e.invol += p.invol - (was?.invol ?? 0);
    if (process.env.DIAG_VERBOSE && p.cpu - before > 0.05)
      console.log(`   [${pid}] ${k}: ${(p.cpu - before).toFixed(2)} s ${p.cmd.slice(0, 100)}`);
  }
  return by;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
};

function report(label: string, jobs: number, secs: number, cpu: ReturnType<typeof cpuDelta>) {
  console.log(`\n== ${label}: ${jobs} jobs in ${secs.toFixed(2)} s = ${(jobs / secs).toFixed(0)} jobs/s`);
  let total = 0;
  for (const [k, { cpu: v, vol, invol }] of Object.entries(cpu).sort((x, y) => y[1].cpu - x[1].cpu)) {
    if (v < 0.005) continue;
    total += v;
    console.log(
      `   ${k.padEnd(36)} ${v.toFixed(2)} CPU-s  ${((v / jobs) * 1e6).toFixed(0).padStart(6)} µs/job  switches/job: ${(vol / jobs).toFixed(1)} waited, ${(invol / jobs).toFixed(1)} preempted`,
    );
  }
  console.log(
    `   ${'total'.padEnd(36)} ${total.toFixed(2)} CPU-s  ${((total / jobs) * 1e6).toFixed(0).padStart(6)} µs/job (${(total / secs).toFixed(2)} cores busy)`,
  );
}

async function topStatements(admin: pg.Client, jobs: number) {
  const r = await admin.query(
    `SELECT calls, round(total_exec_time::numeric, 1) AS ms, round((total_exec_time / calls * 1000)::numeric, 1) AS us_per_call,
            round((total_plan_time)::numeric, 1) AS plan_ms, toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q
       FROM pg_stat_statements WHERE calls > 50 ORDER BY total_exec_time DESC LIMIT 14`,
  );
  console.log(`   pg_stat_statements (exec time; nested statements counted inside their caller too), per job:`);
  for (const x of r.rows)
    console.log(
      `   ${String(x.calls).padStart(7)} calls ${String(x.us_per_call).padStart(7)} µs/call ${((x.ms / jobs) * 1000).toFixed(0).padStart(5)} µs/job ${x.toplevel ? 'top ' : 'nest'} ${x.q}`,
    );
}

/**
 * Wait events of the other backends, sampled every few ms while `until` is pending (pg_stat_activity): where a
 * backend that is in a statement spends it — on the CPU (no wait event), on a lock (Lock/advisory,
 * LWLock/NotifyQueue…), on the client (Client/ClientRead: idle between round trips, not counted).
 */
async function sampleWaits(url: string, until: Promise<unknown>): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const counts = new Map<string, number>();
  let samples = 0;
  let stop = false;
  until.finally(() => {
    stop = true;
  });
  while (!stop) {
    const r = await c.query(
      `SELECT COALESCE(wait_event_type || '/' || wait_event, 'CPU') AS w, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS q
         FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    samples++;
    for (const x of r.rows) {
      const k = `${x.w}  ${x.q}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    await new Promise((res) => setTimeout(res, 2));
  }
  await c.end();
  console.log(`   wait events of active backends, ${samples} samples (mean active backends per sample):`);
  for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`   ${(n / samples).toFixed(2).padStart(6)}  ${k}`);
}

// ----- the link (as pg-link.ts)
function relay(pgPort: number): Promise<{ port: number; close(): void }> {
  const open = new Set<Socket>();
  const srv = createServer((client) => {
    client.setNoDelay(true);
    const db = createConnection({ host: '127.0.0.1', port: pgPort }, () => db.setNoDelay(true));
    const queue: { at: number; chunk: Buffer }[] = [];
    let scheduled = false;
    const flush = () => {
      const now = performance.now();
      while (queue.length > 0 && queue[0]!.at <= now) db.write(queue.shift()!.chunk);
      scheduled = queue.length > 0;
      if (scheduled) setTimeout(flush, queue[0]!.at - now);
    };
    client.on('data', (chunk: Buffer) => {
      queue.push({ at: performance.now() + 1, chunk });
      if (scheduled) return;
      scheduled = true;
      setTimeout(flush, 1);
    });
    db.pipe(client);
    open.add(client).add(db);
    const end = () => {
      client.destroy();
      db.destroy();
    };
    client.on('error', end).on('close', end);
    db.on('error', end).on('close', end);
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      resolve({
        port: typeof a === 'object' && a ? a.port : 0,
        close: () => {
          for (const s of open) s.destroy();
          srv.close();
        },
      });
    }),
  );
}

// ----- the floor, in this process
async function floor(url: string) {
  const schema = 'diag_floor';
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(PG_FLOOR_DDL(schema));
  await admin.query(PG_FLOOR_SQL(schema).seed, [JOBS]);
  await admin.query(`VACUUM ANALYZE ${schema}.tasks`);
  const { claim: claimSql, complete: completeSql } = PG_FLOOR_SQL(schema);
  const linkUrl = link ? withPort(url, link.port) : url;
  const clients = await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      const c = new pg.Client({ connectionString: linkUrl });
      await c.connect();
      return c;
    }),
  );
  let done = 0;
  let t0 = 0;
  let cpu0 = cpuByPid();
  const lat: number[] = [];
  await Promise.all(
    clients.map(async (c, w) => {
      for (let i = 0; ; i++) {
        const a = performance.now();
        const r = await c.query({
          name: 'claim',
          text: claimSql,
          values: [`agent-${w}`, `c${w}-${i}`, Date.now() + 300_000, 'default'],
        });
        const row = r.rows[0] as { id: string; claim_id: string } | undefined;
        if (!row) return;
        await c.query({ name: 'complete', text: completeSql, values: ['{"ok":true}', row.id, row.claim_id] });
        if (done >= WARMUP) lat.push(performance.now() - a);
        done++;
        if (done === WARMUP) {
          await admin.query('SELECT pg_stat_statements_reset()');
          cpu0 = cpuByPid();
          t0 = performance.now();
        }
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu = cpuDelta(cpu0, cpuByPid());
  report(`floor (bare pg loop, ${WORKERS} connections)`, done - WARMUP, secs, cpu);
  console.log(
    `   job latency (claim + complete) p50 ${pct(lat, 0.5).toFixed(2)} ms, p90 ${pct(lat, 0.9).toFixed(2)} ms`,
  );
  await topStatements(admin, done - WARMUP);
  await Promise.all(clients.map((c) => c.end()));
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}

function withPort(url: string, port: number) {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

// ----- coord
async function coord(url: string) {
  const profDir = repoPath('bench/.cache/prof/pg');
  rmSync(profDir, { recursive: true, force: true });
  const more = [];
  for (let i = 1; i < DAEMONS; i++) more.push(await startCoordDaemon({ store: link ? withPort(url, link.port) : url }));
  const d = await startCoordDaemon({
    store: link ? withPort(url, link.port) : url,
    nodeArgs: [
      ...(PROF ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
      ...(process.env.DIAG_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(
      `INSERT INTO tasks (id, board, kind, title, body, priority, created_by, state, created_at, updated_at,
                          expires_at, payload_hash)
       SELECT 't' || lpad(i::text, 7, '0'), 'default', 'bench', 'task ' || i, 'a small body for task number ' || i,
              i % 3, 'bench', 'queued', 1700000000000 + i, 1700000000000 + i, $2, 'h'
       FROM generate_series(1, $1) AS i`,
      [JOBS, FAR_EXPIRY],
    );
    await admin.query('VACUUM ANALYZE tasks');
    if (process.env.DIAG_SQL) await admin.query(readFileSync(process.env.DIAG_SQL, 'utf8'));
    const bases = [d, ...more].map((x) => ({ url: new URL(x.url), token: x.token }));
    let done = 0;
    let t0 = 0;
    let cpu0 = cpuByPid();
    const claimLat: number[] = [];
    const submitLat: number[] = [];
    // The daemons' queries to PostgreSQL (GET /v1/health round_trips), counted over the timed part.
    const healthAgent = new Agent({ keepAlive: false });
    const queries = async () => {
      let n = 0;
      for (const b of bases) {
        const h = JSON.parse((await call(healthAgent, b, 'GET', '/v1/health')).body) as {
          round_trips?: { queries: number };
        };
        n += h.round_trips?.queries ?? Number.NaN;
      }
      return n;
    };
    let q0 = 0;
    let drained: () => void = () => {};
    const sampling = sampleWaits(
      url,
      new Promise<void>((res) => {
        drained = res;
      }),
    );
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (;;) {
          const a = performance.now();
          const { url: base, token } = bases[w % bases.length]!;
          const c = await call(agent, { url: base, token }, 'POST', '/v1/claim', {
            agent: `worker-${w}`,
            lease_s: 300,
          });
          if (c.status === 204) return;
          if (c.status !== 200) throw new Error(`claim ${c.status} ${c.body}`);
          const b = performance.now();
          const g = JSON.parse(c.body) as { task: { id: string }; claim_id: string };
          const s = await call(agent, { url: base, token }, 'POST', `/v1/tasks/${g.task.id}/submit`, {
            claim_id: g.claim_id,
            status: 'completed',
            result: { ok: true },
          });
          if (s.status !== 200) throw new Error(`submit ${s.status} ${s.body}`);
          if (done >= WARMUP) {
            claimLat.push(b - a);
            submitLat.push(performance.now() - b);
          }
          done++;
          if (done === WARMUP) {
            await admin.query('SELECT pg_stat_statements_reset()');
            q0 = await queries();
            cpu0 = cpuByPid();
            t0 = performance.now();
          }
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    const after = cpuByPid();
    const trips = (await queries()) - q0;
    drained();
    await sampling;
    for (const x of (await admin.query("SELECT pid FROM pg_stat_activity WHERE query ILIKE 'LISTEN%'")).rows)
      listeners.add(x.pid as number);
    const cpu = cpuDelta(cpu0, after, d.pid);
    report(`coord (${DAEMONS} daemon${DAEMONS > 1 ? 's' : ''}, ${WORKERS} HTTP workers)`, done - WARMUP, secs, cpu);
    console.log(`   round trips to PostgreSQL per job: ${(trips / (done - WARMUP)).toFixed(2)} (GET /v1/health)`);
    console.log(
      `   claim-next p50 ${pct(claimLat, 0.5).toFixed(2)} ms p90 ${pct(claimLat, 0.9).toFixed(2)} ms; submit p50 ${pct(submitLat, 0.5).toFixed(2)} ms p90 ${pct(submitLat, 0.9).toFixed(2)} ms`,
    );
    await topStatements(admin, done - WARMUP);
    const f = await admin.query(
      'SELECT funcname, calls, round(total_time::numeric,1) AS total_ms, round(self_time::numeric,1) AS self_ms FROM pg_stat_user_functions',
    );
    for (const x of f.rows)
      console.log(`   function ${x.funcname}: ${x.calls} calls, total ${x.total_ms} ms, self ${x.self_ms} ms`);
  } finally {
    await admin.end();
    await d.stop();
    for (const m of more) await m.stop();
  }
  if (PROF) {
    const files = readdirSync(profDir)
      .map((f) => join(profDir, f))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    if (files[0]) {
      console.log(`\n${files[0]}`);
      for (const fr of topFrames(files[0], 30))
        console.log(`${String(fr.share).padStart(5)} %  ${fr.self_ms} ms  ${fr.frame}`);
    }
  }
}

const server = await startPostgres({
  settings: {
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
    track_functions: 'all',
  },
});
let link: { port: number; close(): void } | undefined;
try {
  const db = await server.createDatabase();
  const admin = new pg.Client({ connectionString: db });
  await admin.connect();
  await admin.query('CREATE EXTENSION pg_stat_statements');
  await admin.end();
  if (LINK) link = await relay(server.port);
  const which = process.argv.includes('--coord-only')
    ? ['coord']
    : process.argv.includes('--floor-only')
      ? ['floor']
      : ['floor', 'coord'];
  if (which.includes('floor')) await floor(db);
  if (which.includes('coord')) await coord(db);
} finally {
  link?.close();
  await server.stop();
}
