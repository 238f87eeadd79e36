/**
 * Issue 15: on PostgreSQL a claim by id, a claim-next and a submit each make one round trip in their common
 * case (one autocommitted statement or one server-side function: no BEGIN/COMMIT, no due probe, no read of
 * the events back). Counted here statement by statement on the store's own pool, so a regression fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { invoke } from '../../src/core/invoke.js';
import type { CoordEvent } from '../../src/core/model.js';
import type { Ctx } from '../../src/core/operation.js';
import { claimTask } from '../../src/core/ops/claim-task.js';
import { submitResult } from '../../src/core/ops/fenced.js';
import type { CreateTaskCommand } from '../../src/core/ports.js';
import { Presence } from '../../src/core/presence.js';
import { systemClock } from '../../src/core/shared/clock.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { waitFor } from '../live/helpers.js';
import { type PgServer, startPostgres } from '../support/postgres.js';

let server: PgServer;
let url = '';
let schemas = 0;
before(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
});
after(() => server?.stop());

/** Every statement the store's connections send (pool.query and checked-out clients alike). */
function recordStatements(store: PostgresStore, outcomes: string[] = []): string[] {
  const sent: string[] = [];
  const wrapped = new WeakSet<pg.PoolClient>();
  store.pool.on('acquire', (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query;
    client.query = function recorded(this: pg.PoolClient, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      const text = typeof q === 'string' ? q : q.text;
      sent.push(text);
      // The pool passes a callback: note what each claim-next answered (done, none, retry, due).
      const cb = args.at(-1);
      if (/coord_claim_next\(/.test(text) && typeof cb === 'function')
        args[args.length - 1] = (err: unknown, res: pg.QueryResult<{ outcome: string }>) => {
          if (!err) outcomes.push(res.rows[0]?.outcome ?? '?');
          return (cb as (...a: unknown[]) => unknown)(err, res);
        };
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof client.query;
  });
  return sent;
}

const kindOf = (sql: string): string =>
  /coord_claim_next\(/.test(sql)
    ? 'claim-next'
    : /coord_submit\(/.test(sql)
      ? 'submit'
      : /^WITH n AS/.test(sql)
        ? 'claim'
        : /AS locks_due/.test(sql)
          ? 'sweep probe'
          : sql.replace(/\s+/g, ' ').slice(0, 60);

const task = (i: number): CreateTaskCommand => ({
  board: 'trips',
  kind: 'task',
  title: `task ${i}`,
  body: '',
  priority: 0,
  labels: [],
  for: null,
  created_by: 'poster',
  ttl_ms: 3_600_000,
  idempotency_key: null,
  payload_hash: 'h',
  blocked_by: [],
  parent: null,
});

// No safety catch-up poll during a test (it is a read every 5 s; here it would be counted).
const open = (schema: string) => PostgresStore.open({ url, schema, eventPollMs: 3_600_000, max: 4 });

describe('postgres: one round trip per claim, per claim-next and per submit', () => {
  test('a claim by id, a claim-next, a submit, an empty claim-next and a sweep with nothing due each send exactly one statement', async () => {
    const store = await open(`trips_${process.pid}_${++schemas}`);
    try {
      const created = await store.createTask(task(1));
      assert.ok(created.ok);
      const a = created;
      await store.createTask(task(2));
      const sent = recordStatements(store);
      const one = async (what: string, fn: () => Promise<unknown>) => {
        const before = sent.length;
        const out = await fn();
        assert.deepEqual(sent.slice(before).map(kindOf), [what], `${what}: one statement`);
        return out;
      };
      const claim = { agent: 'w', lease_ms: 60_000, session_id: null };
      const byId = (await one('claim', () =>
        store.claimTask({ ...claim, task_id: a.task.id, claim_id: 'c1', files: [] }),
      )) as { ok: boolean };
      assert.equal(byId.ok, true);
      const done = { status: 'completed' as const, result: { ok: true }, result_hash: 'r' };
      assert.equal(
        ((await one('submit', () => store.submit({ task_id: a.task.id, claim_id: 'c1', ...done }))) as { ok: boolean })
          .ok,
        true,
      );
      const next = { ...claim, board: 'trips', kinds: [], labels: [] };
      const g = (await one('claim-next', () => store.claimNext({ ...next, claim_id: 'c2' }))) as {
        task: { id: string };
      } | null;
      assert.ok(g);
      await one('submit', () => store.submit({ task_id: g.task.id, claim_id: 'c2', ...done }));
      assert.equal(await one('claim-next', () => store.claimNext({ ...next, claim_id: 'c3' })), null);
      assert.equal(await one('sweep probe', () => store.sweep()), 0);
    } finally {
      await store.close();
    }
  });

  test('a completed submit through the operation, on a daemon with git, sends one statement: no read of the claim’s work tree when it recorded none, no look for ended locks when none ended, no second look for its integration', async () => {
    const store = await open(`trips_${process.pid}_${++schemas}`);
    try {
      const created = await store.createTask(task(1));
      assert.ok(created.ok);
      const ctx: Ctx = { store, clock: systemClock, presence: new Presence(), git: new GitRepos() };
      const g = await invoke(claimTask, ctx, { task_id: created.task.id, agent: 'w' });
      const sent = recordStatements(store);
      const out = await invoke(submitResult, ctx, { task_id: g.task.id, claim_id: g.claim_id, status: 'completed' });
      assert.equal(out.task.state, 'completed');
      assert.deepEqual(sent.map(kindOf), ['submit']);
      assert.deepEqual(out.task.integration, { state: 'none' });
    } finally {
      await store.close();
    }
  });

  test('workers draining one board through two stores at once send one statement per claim-next and per submit, and each store still delivers every event once, in seq order', async () => {
    const schema = `trips_${process.pid}_${++schemas}`;
    const stores = [await open(schema), await open(schema)];
    const JOBS = 300;
    const WORKERS = 4; // per store
    try {
      for (let i = 0; i < JOBS; i += 50)
        await Promise.all(Array.from({ length: 50 }, (_, j) => stores[0]!.createTask(task(i + j))));
      const seen = stores.map(() => [] as CoordEvent[]);
      for (const [n, s] of stores.entries()) s.subscribe((es) => void seen[n]!.push(...es));
      const outcomes: string[] = [];
      const sent = stores.map((s) => recordStatements(s, outcomes));
      let claimed = 0;
      await Promise.all(
        stores.flatMap((store, n) =>
          Array.from({ length: WORKERS }, async (_, w) => {
            for (let i = 0; ; i++) {
              const g = await store.claimNext({
                agent: `w${n}-${w}`,
                board: 'trips',
                kinds: [],
                labels: [],
                claim_id: `c${n}-${w}-${i}`,
                lease_ms: 60_000,
                session_id: null,
              });
              if (!g) return;
              claimed++;
              const s = await store.submit({
                task_id: g.task.id,
                claim_id: g.claim_id,
                status: 'completed',
                result: null,
                result_hash: 'r',
              });
              assert.equal(s.ok, true);
            }
          }),
        ),
      );
      assert.equal(claimed, JOBS);
      const kinds = sent.flat().map(kindOf);
      const count = (k: string) => kinds.filter((x) => x === k).length;
      assert.deepEqual(
        kinds.filter((k) => k !== 'claim-next' && k !== 'submit'),
        [],
        'nothing but the two functions: no transaction, no probe, no catch-up read of the events',
      );
      assert.equal(count('submit'), JOBS);
      // One statement per claim-next: JOBS that claimed, one empty one per worker, and a look again for each
      // answer 'retry' (every remaining candidate was being claimed by another worker at that instant).
      const answered = (o: string) => outcomes.filter((x) => x === o).length;
      assert.equal(answered('done'), JOBS);
      assert.equal(answered('none'), WORKERS * stores.length);
      assert.equal(count('claim-next'), JOBS + WORKERS * stores.length + answered('retry'), outcomes.join(' '));
      // Every event (2 per job), on both stores, once each, in seq order.
      for (const es of seen) {
        await waitFor(() => es.filter((e) => e.type !== 'task.created').length >= 2 * JOBS, 'every event');
        const seqs = es.map((e) => e.seq);
        assert.ok(
          seqs.every((q, i) => i === 0 || q > seqs[i - 1]!),
          'once each, in seq order',
        );
        assert.equal(es.filter((e) => e.type === 'task.claimed').length, JOBS);
        assert.equal(es.filter((e) => e.type === 'task.completed').length, JOBS);
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
