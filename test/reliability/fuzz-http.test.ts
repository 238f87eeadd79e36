/**
 * Hostile input over HTTP (issue 8, item 3): every route, in process through
 * fastify's inject, with random and hostile bodies, queries, path segments
 * and Content-Types mixed into mostly-valid requests. Whatever arrives: never
 * a 5xx, every error in the SPEC §4 shape with the status its code maps to,
 * nothing internal on the wire, nothing written by a rejected request (nor by
 * any read), what was accepted reads back exactly, and no prototype polluted.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ERROR_CODES, type ErrorCode } from '../../src/core/errors.js';
import { canonicalJson } from '../../src/core/shared/canonical-json.js';
import { STATUS } from '../../src/server/http/errors.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makePostgresStore } from '../postgres/make-store.js';
import { type HttpHarness, httpHarness, TEST_PORT, TEST_TOKEN } from '../support/http.js';
import { type PgServer, startPostgres } from '../support/postgres.js';
import { type Pools, type RequestPlan, requestPlan, resolvePlan, type SentRequest } from './fuzz-http-requests.js';
import { POLLUTED } from './hostile-inputs.js';

const SQLITE_RUNS = Number(process.env.COORD_FUZZ_RUNS ?? 4000);
const PG_RUNS = Math.ceil(SQLITE_RUNS / 4);

/** Codes an answer may carry here: SPEC §4's, less the two that mean coord itself failed. */
const CLIENT_CODES = new Set<string>(ERROR_CODES.filter((c) => c !== 'internal' && c !== 'store_unavailable'));

/** What must never reach a client: stack frames, driver and SQL internals, JS error names. */
const INTERNALS = [
  /\bat [^\s]+ \(?[^\s]*:\d+:\d+\)?/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /SQLITE_[A-Z]+/,
  /better-sqlite3|node_modules/,
  /sqlite/i,
  /postgres|\bpg\b|syntax error at or near|invalid input syntax|violates|duplicate key|relation "|column "/i,
  /\b(?:SELECT \S.* FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM|RETURNING \*)/i,
  /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|ZodError)\b/,
  /Maximum call stack|Cannot read propert|is not a function|undefined is not/,
];

/** Event streams the fuzzer opened (and hung up on). */
let sseStreams = 0;

interface Answer {
  status: number;
  text: string;
  json: any;
  contentType: string;
}

async function send(h: HttpHarness, r: SentRequest): Promise<Answer> {
  const res = await h.app.inject({
    method: r.method,
    url: r.url,
    headers: { host: `127.0.0.1:${TEST_PORT}`, authorization: `Bearer ${TEST_TOKEN}`, ...r.headers },
    ...(r.payload === undefined ? {} : { payload: r.payload }),
    // The event stream never ends: read its head, then hang up.
    payloadAsStream: true,
  });
  const contentType = String(res.headers['content-type'] ?? '');
  const stream = res.stream();
  if (contentType.startsWith('text/event-stream')) {
    sseStreams++;
    stream.destroy();
    return { status: res.statusCode, text: '', json: undefined, contentType };
  }
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  const text = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json, contentType };
}

/**
 * What the store holds. `quick` is cheap and strict (SQLite: total_changes() on
 * the store's own connection, so even a write undone later counts, plus the
 * event count); `full` is the content itself. Equal before and after means
 * nothing was written.
 */
interface Fingerprint {
  quick(): Promise<string>;
  full(): Promise<string>;
}

const hashRows = (rows: unknown[]) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');

const sqliteFingerprint = (h: HttpHarness): Fingerprint => {
  const db = (h.store as SqliteStore).db;
  const quick = db.prepare('SELECT total_changes() AS changes, (SELECT count(*) FROM events) AS events');
  const tables = [
    'SELECT * FROM tasks ORDER BY id',
    'SELECT * FROM locks ORDER BY lock_id',
    'SELECT * FROM lock_resources ORDER BY lock_id, resource',
    'SELECT task_id, artifact_id, sha256, name, content_type FROM artifacts ORDER BY task_id, artifact_id',
    'SELECT count(*) AS n, max(seq) AS seq FROM events',
  ].map((sql) => db.prepare(sql));
  return {
    quick: async () => JSON.stringify(quick.get()),
    full: async () => hashRows(tables.map((t) => t.all())),
  };
};

const PG_FINGERPRINT = `SELECT
  (SELECT count(*) FROM events) AS events,
  (SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t.id), '')) FROM tasks t) AS tasks,
  (SELECT md5(coalesce(string_agg(l::text, '|' ORDER BY l.lock_id), '')) FROM locks l) AS locks,
  (SELECT md5(coalesce(string_agg(r::text, '|' ORDER BY r.lock_id, r.resource), '')) FROM lock_resources r) AS resources,
  (SELECT md5(coalesce(string_agg(a.task_id || '/' || a.artifact_id || '/' || a.sha256, '|' ORDER BY a.task_id, a.artifact_id), ''))
     FROM artifacts a) AS artifacts`;

const pgFingerprint = (h: HttpHarness): Fingerprint => {
  const pool = (h.store as PostgresStore).pool;
  const full = async () => JSON.stringify((await pool.query(PG_FINGERPRINT)).rows[0]);
  return { quick: full, full };
};

/**
 * Rule 10's one exception to "a refused request changed nothing, not even
 * transiently": a claim with files whose files are held wins the claim UPDATE
 * and then undoes it with a savepoint. SQLite's total_changes() counts the
 * undone rows, so for that answer the content itself is compared.
 */
const undoneBySavepoint = (r: SentRequest, a: Answer) =>
  r.route === 'claim_task' && a.json?.error?.code === 'lock_conflict';

/** A few tasks, claims, a lock and an artifact, so fuzzed requests reach past "not found". */
async function seed(h: HttpHarness): Promise<Pools> {
  const pools: Pools = { tasks: [], claims: [], locks: [], artifacts: [] };
  for (let i = 0; i < 8; i++) {
    const r = await h.req('POST', '/v1/tasks', { title: `seed ${i}`, agent: 'alice', labels: ['ui'], kind: 'bug' });
    pools.tasks.push(r.json.task.id);
  }
  for (const id of pools.tasks.slice(0, 4)) {
    const r = await h.req('POST', `/v1/tasks/${id}/claim`, { agent: 'bob', files: [`seed/${id}.ts`] });
    pools.claims.push({ task_id: id, claim_id: r.json.claim_id });
    pools.locks.push(r.json.lock.lock_id);
  }
  const lock = await h.req('POST', '/v1/locks', { agent: 'carol', resources: ['docs/'] });
  pools.locks.push(lock.json.lock_id);
  const claim = pools.claims[0]!;
  await h.req('PUT', `/v1/tasks/${claim.task_id}/artifacts/log.txt`, Buffer.from('hello'), {
    'coord-claim-id': claim.claim_id,
    'content-type': 'text/plain',
  });
  pools.artifacts.push({ task_id: claim.task_id, artifact_id: 'log.txt' });
  return pools;
}

const requestText = (r: SentRequest): string => {
  let url = r.url;
  try {
    url = decodeURIComponent(r.url);
  } catch {}
  return `${url}\n${typeof r.payload === 'string' ? r.payload : ''}\n${Object.values(r.headers).join('\n')}`;
};

function checkAnswer(r: SentRequest, a: Answer): void {
  const where = `${r.method} ${r.url.slice(0, 200)} → ${a.status} ${a.text.slice(0, 300)}`;
  assert.ok(a.status < 500, `a 5xx: ${where}`);
  assert.ok([200, 201, 204].includes(a.status) || a.status >= 400, `unexpected status: ${where}`);
  if (a.status < 400) return;
  assert.match(a.contentType, /^application\/json/, `an error that is not JSON: ${where}`);
  const e = a.json?.error;
  assert.ok(e && typeof e === 'object', `no {error} body: ${where}`);
  assert.ok(CLIENT_CODES.has(e.code), `code ${e.code} is not a SPEC §4 client code: ${where}`);
  assert.equal(STATUS[e.code as ErrorCode], a.status, `status does not match code: ${where}`);
  assert.ok(typeof e.message === 'string' && e.message.length > 0, `no message: ${where}`);
  if (e.code === 'invalid_request') {
    assert.ok(Array.isArray(e.issues), `invalid_request without issues: ${where}`);
    for (const i of e.issues) assert.ok(typeof i.path === 'string' && typeof i.message === 'string', where);
  }
  const sent = requestText(r);
  for (const pattern of INTERNALS) {
    const m = pattern.exec(a.text);
    // A message may quote what the client sent; it must not show anything else.
    if (m && !sent.includes(m[0])) assert.fail(`internals on the wire (${pattern}): ${where}`);
  }
}

/** Reads never write, and neither does anything refused or "nothing to claim". */
const mustNotWrite = (r: SentRequest, a: Answer) => a.status >= 400 || a.status === 204 || r.method === 'GET';

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);

/** What was accepted reads back exactly: no character replaced, dropped or cut on the way into a store. */
async function checkRoundTrip(h: HttpHarness, r: SentRequest, a: Answer): Promise<void> {
  // What the server saw: the body as JSON.parse reads it (RawJson texts such as -0 or 1e309 included).
  let sent: Record<string, unknown> | undefined;
  try {
    sent = typeof r.payload === 'string' ? JSON.parse(r.payload) : undefined;
  } catch {
    return;
  }
  if (!sent || typeof sent !== 'object') return;
  if (r.route === 'create_task' && a.status === 201) {
    const shown = (await h.req('GET', `/v1/tasks/${a.json.task.id}`)).json.task;
    for (const k of ['title', 'body', 'labels', 'idempotency_key', 'priority'] as const) {
      if (sent[k] !== undefined)
        assert.deepEqual(shown[k], k === 'title' ? trimmed(sent[k]) : sent[k], `${k} did not read back as sent`);
    }
  }
  if (r.route === 'submit' && a.status === 200 && a.json.replayed === false) {
    const shown = (await h.req('GET', `/v1/tasks/${a.json.task.id}`)).json.task;
    assert.equal(canonicalJson(shown.result), canonicalJson(sent.result ?? null), 'result did not read back as sent');
  }
}

const POOL_CAP = 300;
function learn(pools: Pools, r: SentRequest, a: Answer): void {
  if (a.status !== 200 && a.status !== 201) return;
  const j = a.json;
  const add = <T>(xs: T[], x: T) => xs.length < POOL_CAP && xs.push(x);
  if (r.route === 'create_task') add(pools.tasks, j.task.id);
  if ((r.route === 'claim_task' || r.route === 'claim_next') && j.claim_id) {
    add(pools.claims, { task_id: j.task.id, claim_id: j.claim_id });
    if (j.lock) add(pools.locks, j.lock.lock_id);
  }
  if (r.route === 'lock') add(pools.locks, j.lock_id);
  if (r.route === 'put_artifact') add(pools.artifacts, { task_id: j.artifact.task_id, artifact_id: j.artifact.id });
}

const protoSnapshot = () =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) =>
    Object.getOwnPropertyNames(p).sort().join(','),
  );

interface FuzzFigures {
  inputs: number;
  statuses: Record<string, number>;
  codes: Record<string, number>;
  routes: Record<string, number>;
  unwrittenChecked: number;
}

async function fuzz(h: HttpHarness, fingerprint: Fingerprint, runs: number, fcSeed?: number): Promise<FuzzFigures> {
  const pools = await seed(h);
  const figures: FuzzFigures = { inputs: 0, statuses: {}, codes: {}, routes: {}, unwrittenChecked: 0 };
  const bump = (m: Record<string, number>, k: string) => {
    m[k] = (m[k] ?? 0) + 1;
  };
  const protoBefore = protoSnapshot();
  await fc.assert(
    fc.asyncProperty(requestPlan, async (plan: RequestPlan) => {
      const r = resolvePlan(plan, pools);
      const before = await fingerprint.quick();
      const beforeFull = r.route === 'claim_task' ? await fingerprint.full() : '';
      const a = await send(h, r);
      figures.inputs++;
      bump(figures.statuses, String(a.status));
      bump(figures.routes, r.route);
      if (a.status >= 400) bump(figures.codes, a.json?.error?.code ?? '?');
      checkAnswer(r, a);
      if (mustNotWrite(r, a)) {
        const wrote = `${r.method} ${r.url} answered ${a.status} but wrote: ${a.text.slice(0, 300)}`;
        if (undoneBySavepoint(r, a)) assert.equal(await fingerprint.full(), beforeFull, wrote);
        else assert.equal(await fingerprint.quick(), before, wrote);
        figures.unwrittenChecked++;
      }
      await checkRoundTrip(h, r, a);
      learn(pools, r, a);
    }),
    {
      numRuns: runs,
      ...(fcSeed === undefined ? {} : { seed: fcSeed }),
      endOnFailure: true,
      includeErrorInReport: true,
    },
  );
  assert.deepEqual(protoSnapshot(), protoBefore, 'a prototype gained properties');
  assert.equal(({} as Record<string, unknown>)[POLLUTED], undefined);
  assert.equal(([] as unknown as Record<string, unknown>)[POLLUTED], undefined);
  // Still answering, and still right, after everything it was sent.
  const health = await h.req('GET', '/v1/health');
  assert.equal(health.status, 200);
  const posted = await h.req('POST', '/v1/tasks', { title: 'after the storm', agent: 'alice', board: 'calm' });
  assert.equal(posted.status, 201);
  const claimed = await h.req('POST', '/v1/claim', { agent: 'bob', board: 'calm' });
  assert.equal(claimed.json.task.id, posted.json.task.id);
  return figures;
}

const show = (label: string, f: FuzzFigures) =>
  console.log(
    `# http fuzz: ${f.inputs} inputs (${label}), ${f.unwrittenChecked} checked to write nothing, statuses ${JSON.stringify(f.statuses)}, codes ${JSON.stringify(f.codes)}, routes ${Object.keys(f.routes).length}, event streams opened ${sseStreams}`,
  );

/**
 * What the fuzzer (and the probing around it) found, kept as plain examples.
 * Each was a 5xx, an answer outside coord's error shape, or text a store
 * silently changed.
 */
function regressions(h: () => HttpHarness): void {
  const issue = (res: { json: any }) => res.json?.error?.issues?.[0];

  test('a page cursor of 23 digits is invalid_request naming cursor (PostgreSQL answered 500: 1e+23 is no bigint)', async () => {
    // Found by the fuzzer: GET /v1/tasks?...&cursor=99999999999999999999999.x
    const res = await h().req('GET', '/v1/tasks?cursor=99999999999999999999999.x');
    assert.equal(res.status, 400);
    assert.equal(issue(res).path, 'cursor');
    assert.match(issue(res).message, /next_cursor/);
  });

  test('a path with a broken %-escape answers invalid_request in coord’s shape (was fastify’s FST_ERR_BAD_URL body)', async () => {
    // Found by the fuzzer: POST /v1/tasks/%/release
    const res = await h().req('POST', '/v1/tasks/%/release', { claim_id: 'c' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
    assert.doesNotMatch(res.text, /FST_ERR/);
  });

  test('a path segment over 100 characters answers invalid_request, not fastify’s 414 body', async () => {
    const res = await h().req('GET', `/v1/tasks/${'a'.repeat(101)}`);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
  });

  test('a result nested 5000 deep is invalid_request naming result (zod recursed until the stack overflowed: 500)', async () => {
    const task = (await h().req('POST', '/v1/tasks', { title: 'deep', agent: 'a', board: 'regress' })).json.task;
    const claim = (await h().req('POST', `/v1/tasks/${task.id}/claim`, { agent: 'a' })).json;
    const deep = `{"claim_id":"${claim.claim_id}","status":"completed","result":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await h().req('POST', `/v1/tasks/${task.id}/submit`, deep, { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.match(issue(res).path, /^result/);
    assert.match(issue(res).message, /deeper than 100/);
    assert.equal((await h().req('GET', `/v1/tasks/${task.id}`)).json.task.state, 'claimed');
  });

  test('a result keeps a "__proto__" key, NUL and lone surrogates exactly (zod’s z.json() dropped the key silently)', async () => {
    const task = (await h().req('POST', '/v1/tasks', { title: 'proto', agent: 'a', board: 'regress' })).json.task;
    const claim = (await h().req('POST', `/v1/tasks/${task.id}/claim`, { agent: 'a' })).json;
    const result = '{"__proto__":{"x":1},"s":"a\\u0000b\\ud800"}';
    const body = `{"claim_id":"${claim.claim_id}","status":"completed","result":${result}}`;
    const res = await h().req('POST', `/v1/tasks/${task.id}/submit`, body, { 'content-type': 'application/json' });
    assert.equal(res.status, 200);
    const shown = (await h().req('GET', `/v1/tasks/${task.id}`)).text;
    assert.ok(shown.includes(`"result":${result}`), shown);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  test('a title with a lone surrogate is invalid_request naming title (both stores stored U+FFFD instead)', async () => {
    const res = await h().req('POST', '/v1/tasks', '{"title":"a\\ud800b","agent":"a"}', {
      'content-type': 'application/json',
    });
    assert.equal(res.status, 400);
    assert.equal(issue(res).path, 'title');
  });

  test('two idempotency keys differing only in a lone surrogate are refused, not merged into one key', async () => {
    for (const key of ['k\\ud800', 'k\\udbff']) {
      const res = await h().req('POST', '/v1/tasks', `{"title":"t","agent":"a","idempotency_key":"${key}"}`, {
        'content-type': 'application/json',
      });
      assert.equal(res.status, 400);
      assert.equal(issue(res).path, 'idempotency_key');
    }
  });

  test('NUL in a label is invalid_request naming labels.1 on every store (PostgreSQL refused it, SQLite kept it)', async () => {
    const res = await h().req('POST', '/v1/tasks', { title: 't', agent: 'a', labels: ['ok', 'a\u0000b'] });
    assert.equal(res.status, 400);
    assert.equal(issue(res).path, 'labels.1');
    assert.match(issue(res).message, /NUL/);
  });
}

describe('HTTP fuzz on SQLite', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());
  describe('regressions', () => regressions(() => h));

  test('no hostile request gets a 5xx, an error outside SPEC §4, internals, a write when refused, or a polluted prototype', async () => {
    const f = await fuzz(h, sqliteFingerprint(h), SQLITE_RUNS);
    show('sqlite', f);
    assert.ok(f.statuses['200'] && f.statuses['201'] && f.statuses['400'] && f.statuses['404'] && f.statuses['409']);
  });
});

describe('HTTP fuzz on PostgreSQL', () => {
  let server: PgServer;
  let url = '';
  let h: HttpHarness;
  before(async () => {
    // No autovacuum/analyze writing in the background while the fuzzer compares fingerprints.
    server = await startPostgres({ settings: { autovacuum: 'off' } });
    url = await server.createDatabase();
    h = await httpHarness(makePostgresStore(() => url));
  });
  after(async () => {
    await h?.app.close();
    await h?.store.close();
    await server?.stop();
  });

  describe('regressions', () => regressions(() => h));

  test('the same properties hold on PostgreSQL', async () => {
    const f = await fuzz(h, pgFingerprint(h), PG_RUNS);
    show('postgres', f);
    assert.ok(f.statuses['200'] && f.statuses['400']);
  });
});
