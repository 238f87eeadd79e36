/**
 * Claim-next throughput on PostgreSQL with one daemon against two daemons on
 * the same database (issue 6). Real `coord serve --store postgres://…`
 * processes, the embedded PostgreSQL of the tests, W concurrent HTTP workers
 * (keep-alive) split evenly across the daemons, each draining a backlog with
 * POST /v1/claim until 204 — optionally submitting each task (a full cycle).
 * Rounds alternate 1 and 2 daemons; medians are printed. Every task must be
 * claimed exactly once, or the run fails.
 *
 *   node --import tsx bench/pg-daemons.ts [--tasks 2000] [--workers 8] [--rounds 3] [--submit] [--sqlite]
 *
 * --sqlite adds, for reference, one SQLite daemon drained the same way (its own store, no PostgreSQL).
 *
 * Note: on a small machine the daemons, PostgreSQL and the workers share the
 * same cores, so a second daemon adds CPU contention as well as capacity.
 */
import { parseArgs } from 'node:util';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { type SpawnedDaemon, spawnDaemon } from '../test/support/daemon.js';
import { startPostgres } from '../test/support/postgres.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '2000' },
    workers: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    submit: { type: 'boolean', default: false },
    sqlite: { type: 'boolean', default: false },
  },
});
const TASKS = Number(values.tasks);
const WORKERS = Number(values.workers);
const ROUNDS = Number(values.rounds);

async function seed(url: string): Promise<void> {
  const store = await PostgresStore.open({ url });
  try {
    for (let i = 0; i < TASKS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, TASKS - i) }, (_, j) =>
          store.createTask({
            board: 'bench',
            kind: 'task',
            title: `task ${i + j}`,
            body: '',
            priority: 0,
            labels: [],
            for: null,
            created_by: 'seeder',
            ttl_ms: 86_400_000,
            idempotency_key: null,
            payload_hash: 'x',
            blocked_by: [],
            parent: null,
          }),
        ),
      );
    }
  } finally {
    await store.close();
  }
}

async function drain(d: SpawnedDaemon, agent: string, claimed: string[]): Promise<void> {
  for (;;) {
    const res = await d.fetch('/v1/claim', { method: 'POST', json: { agent, board: 'bench', lease_s: 300 } });
    if (res.status === 204) return;
    const grant = (await res.json()) as { task: { id: string }; claim_id: string };
    if (res.status !== 200) throw new Error(`claim-next answered ${res.status}: ${JSON.stringify(grant)}`);
    claimed.push(grant.task.id);
    if (values.submit) {
      const done = await d.fetch(`/v1/tasks/${grant.task.id}/submit`, {
        method: 'POST',
        json: { claim_id: grant.claim_id, status: 'completed', result: null },
      });
      if (done.status !== 200) throw new Error(`submit answered ${done.status}`);
      await done.arrayBuffer();
    }
  }
}

async function seedOver(d: SpawnedDaemon): Promise<void> {
  for (let i = 0; i < TASKS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, TASKS - i) }, (_, j) =>
        d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'seeder', board: 'bench', title: `task ${i + j}` } }),
      ),
    );
  }
}

/** daemons = 0: one SQLite daemon, for reference. */
async function round(server: Awaited<ReturnType<typeof startPostgres>>, daemons: number): Promise<number> {
  const ds: SpawnedDaemon[] = [];
  try {
    if (daemons === 0) {
      ds.push(await spawnDaemon());
      await seedOver(ds[0]!);
      daemons = 1;
    } else {
      const url = await server.createDatabase();
      await seed(url);
      for (let i = 0; i < daemons; i++) ds.push(await spawnDaemon({ args: ['--store', url] }));
    }
    // Warm each daemon's connections before timing.
    await Promise.all(ds.map((d) => d.fetch('/v1/inbox?agent=warm&board=bench').then((r) => r.arrayBuffer())));
    const claimed: string[] = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => drain(ds[w % daemons]!, `w${w}`, claimed)));
    const seconds = (performance.now() - t0) / 1000;
    if (claimed.length !== TASKS || new Set(claimed).size !== TASKS) {
      throw new Error(`claimed ${claimed.length} (${new Set(claimed).size} distinct) of ${TASKS}`);
    }
    return TASKS / seconds;
  } finally {
    await Promise.all(ds.map((d) => d.stop()));
  }
}

const server = await startPostgres();
try {
  const results: Record<number, number[]> = { 0: [], 1: [], 2: [] };
  const label = (n: number) => (n === 0 ? 'sqlite daemon' : `${n} daemon${n > 1 ? 's' : ''}`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of values.sqlite ? [0, 1, 2] : [1, 2]) {
      const rate = await round(server, n);
      results[n]!.push(rate);
      console.log(`round ${r + 1}: ${label(n)} ${rate.toFixed(0)} ${values.submit ? 'cycles' : 'claims'}/s`);
    }
  }
  const one = median(results[1]!);
  const two = median(results[2]!);
  const what = values.submit ? 'claim+submit cycles/s' : 'claims/s';
  console.log(`\n${TASKS} tasks, ${WORKERS} workers, median of ${ROUNDS} rounds`);
  console.log(`1 daemon:  ${one.toFixed(0)} ${what}`);
  console.log(`2 daemons: ${two.toFixed(0)} ${what}  (${(two / one).toFixed(2)}× one daemon)`);
  if (values.sqlite) console.log(`reference, 1 SQLite daemon: ${median(results[0]!).toFixed(0)} ${what}`);
} finally {
  await server.stop();
}
