/**
 * Requests for the HTTP fuzzer: for every route, a mostly-valid body or query
 * (so deep code paths run against ids that exist) and then a hostile mutation
 * of it. Ids come from what the run has created so far: a `Known` placeholder
 * is resolved against the pools just before the request is sent.
 */
import fc from 'fast-check';
import {
  CLIMBING_PATHS,
  contentType,
  hostileRawBody,
  hostileString,
  hostileValue,
  jsonText,
  own,
  pathSegment,
  queryString,
  RawJson,
  safeEncode,
} from './hostile-inputs.js';

export type PoolName = 'task' | 'claimTask' | 'claimId' | 'lock' | 'artifactTask' | 'artifactId';

/** An id from the run's pools, picked at send time. */
export class Known {
  constructor(
    readonly pool: PoolName,
    readonly n: number,
  ) {}
  toString(): string {
    return `Known(${this.pool},${this.n})`;
  }
}

export interface Pools {
  tasks: string[];
  claims: { task_id: string; claim_id: string }[];
  locks: string[];
  artifacts: { task_id: string; artifact_id: string }[];
}

export function resolveKnown(k: Known, p: Pools): string {
  // Half the picks fall on the newest entries: the oldest tasks are soon cancelled or finished, the new ones still live.
  const at = <T>(xs: T[]): T | undefined =>
    k.n % 2 === 0 ? xs[Math.max(xs.length - 1 - ((k.n >> 1) % 8), 0)] : xs[k.n % Math.max(xs.length, 1)];
  switch (k.pool) {
    case 'task':
      return at(p.tasks) ?? 'zzzzzzzz';
    case 'claimTask':
      return at(p.claims)?.task_id ?? 'zzzzzzzz';
    case 'claimId':
      return at(p.claims)?.claim_id ?? 'no-claim';
    case 'lock':
      return at(p.locks) ?? 'no-lock';
    case 'artifactTask':
      return at(p.artifacts)?.task_id ?? 'zzzzzzzz';
    case 'artifactId':
      return at(p.artifacts)?.artifact_id ?? 'no-artifact';
  }
}

/** A request before its ids are resolved. `segments` fill the `:x` parts of `url` in order. */
export interface RequestPlan {
  route: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';
  url: string;
  segments: (Known | string)[];
  query: string;
  /** A value to write as JSON, a raw text, a Buffer (artifacts), or nothing. */
  body: { json: unknown } | { raw: string } | { bytes: Buffer } | null;
  headers: Record<string, string | Known>;
}

export interface SentRequest {
  route: string;
  method: RequestPlan['method'];
  url: string;
  payload: string | Buffer | undefined;
  headers: Record<string, string>;
  /** The body value as sent (ids resolved), for round-trip checks. */
  json: unknown;
}

const resolveDeep = (v: unknown, p: Pools): unknown => {
  if (v instanceof Known) return resolveKnown(v, p);
  if (v instanceof RawJson) return v;
  if (Array.isArray(v)) return v.map((x) => resolveDeep(x, p));
  if (v !== null && typeof v === 'object') {
    return own(Object.entries(v).map(([k, x]) => [k, resolveDeep(x, p)]));
  }
  return v;
};

export function resolvePlan(plan: RequestPlan, p: Pools): SentRequest {
  let i = 0;
  const url = plan.url.replace(/:[a-z_]+/g, () => {
    const s = plan.segments[i++];
    return s instanceof Known ? safeEncode(resolveKnown(s, p)) : (s ?? '');
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(plan.headers)) headers[k] = v instanceof Known ? resolveKnown(v, p) : v;
  let payload: string | Buffer | undefined;
  let json: unknown;
  if (plan.body && 'json' in plan.body) {
    json = resolveDeep(plan.body.json, p);
    payload = jsonText(json);
  } else if (plan.body && 'raw' in plan.body) payload = plan.body.raw;
  else if (plan.body && 'bytes' in plan.body) payload = plan.body.bytes;
  return { route: plan.route, method: plan.method, url: url + plan.query, payload, headers, json };
}

// ---- valid-ish field values ----

const agent = fc.constantFrom('alice', 'bob', 'claude-code#a1f3', 'ci-bot', 'cursor@host/1');
const board = fc.constantFrom('default', 'default', 'b2');
const n = fc.nat(1000);
const taskId = n.map((i) => new Known('task', i));
const claimTaskId = n.map((i) => new Known('claimTask', i));
const lease = fc.oneof(fc.integer({ min: 1, max: 86_400 }), fc.constant(300));
const files = fc.array(fc.constantFrom('src/a.ts', 'src/', 'docs/x.md', './src//b.ts', 'lib/c.ts'), {
  minLength: 1,
  maxLength: 3,
});
const label = fc.constantFrom('ui', 'p1', 'backend');
const result = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(own([['__proto__', { kept: true }]]), { s: 'nul \u0000 inside', lone: '\ud800', astral: '😀' }, [
    1,
    'two',
    { three: [3] },
  ]),
);

interface RouteSpec {
  route: string;
  method: RequestPlan['method'];
  url: string;
  segments: fc.Arbitrary<(Known | string)[]>;
  /** The valid-ish body (object) or query (key → value) before mutation. */
  fields: fc.Arbitrary<Record<string, unknown>>;
  from: 'body' | 'query' | 'none';
  headers?: fc.Arbitrary<Record<string, string | Known>>;
}

const rec = (shape: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) =>
  fc.record(shape, { requiredKeys: required });

/** URLs a router must take calmly: doubled or trailing slashes, dot segments, encoded slashes, case, huge. */
const ODD_URLS = [
  'v1//tasks',
  'v1/tasks/',
  'v1/tasks/../health',
  'v1/./tasks',
  'v1/%2e%2e/v1/health',
  'v1/tasks/%2F',
  'v1/tasks/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  'v1/TASKS',
  'V1/tasks',
  'v1/tasks;x=1',
  'v1/tasks?',
  'v1/tasks??a=1',
  'v1/tasks#frag',
  'v1/claim/',
  'v1/locks/%00/renew',
  'v1/tasks/a%00b/claim',
  `v1/tasks/${'a'.repeat(5000)}`,
  `v1/tasks?board=${'b'.repeat(10_000)}`,
  'v2/tasks',
  'mcp/../v1/tasks',
  '%2e%2e',
  '',
];

const hdrs = (shape: Record<string, fc.Arbitrary<string | Known>>) =>
  fc.record(shape, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string | Known>>;

const ROUTES: RouteSpec[] = [
  {
    route: 'create_task',
    method: 'POST',
    url: '/v1/tasks',
    segments: fc.constant([]),
    from: 'body',
    fields: rec(
      {
        title: fc.oneof(fc.constant('fix the login bug'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 })),
        agent,
        body: fc.string({ unit: 'grapheme', maxLength: 60 }),
        kind: fc.constantFrom('task', 'bug', 'review'),
        priority: fc.integer({ min: -1000, max: 1000 }),
        labels: fc.array(label, { maxLength: 3 }),
        for: agent,
        ttl_s: fc.integer({ min: 60, max: 2_592_000 }),
        idempotency_key: fc.constantFrom('k1', 'k2', 'k3'),
        board,
      },
      ['title', 'agent'],
    ),
  },
  {
    route: 'list_tasks',
    method: 'GET',
    url: '/v1/tasks',
    segments: fc.constant([]),
    from: 'query',
    fields: rec({
      board,
      state: fc.constantFrom('queued', 'claimed', 'completed'),
      kind: fc.constant('bug'),
      label,
      agent,
      limit: fc.integer({ min: 1, max: 500 }),
      cursor: fc.constantFrom('1700000000000.abc', '99999999999999999999999.x'),
    }),
  },
  {
    route: 'show_task',
    method: 'GET',
    url: '/v1/tasks/:id',
    segments: fc.tuple(segment(taskId)),
    from: 'query',
    fields: rec({ agent }),
  },
  {
    route: 'claim_task',
    method: 'POST',
    url: '/v1/tasks/:id/claim',
    segments: fc.tuple(segment(taskId)),
    from: 'body',
    fields: rec({ agent, lease_s: lease, files }, ['agent']),
  },
  {
    route: 'claim_next',
    method: 'POST',
    url: '/v1/claim',
    segments: fc.constant([]),
    from: 'body',
    fields: rec(
      {
        agent,
        board,
        kinds: fc.array(fc.constantFrom('task', 'bug'), { maxLength: 2 }),
        labels: fc.array(label, { maxLength: 2 }),
        lease_s: lease,
        wait_s: fc.constant(0),
      },
      ['agent'],
    ),
  },
  ...(['heartbeat', 'release', 'submit'] as const).map(
    (what): RouteSpec => ({
      route: what,
      method: 'POST',
      url: `/v1/tasks/:id/${what}`,
      segments: fc.tuple(segment(claimTaskId)),
      from: 'body',
      fields: fc.nat(1000).chain((i) =>
        rec(
          {
            claim_id: fc.oneof(
              { weight: 4, arbitrary: fc.constant(new Known('claimId', i)) },
              { weight: 1, arbitrary: fc.constantFrom('', 'stale', 'x'.repeat(101)) },
            ),
            lease_s: lease,
            to: agent,
            status: fc.constantFrom('completed', 'failed'),
            result,
          },
          what === 'submit' ? ['claim_id', 'status'] : ['claim_id'],
        ).map((f) => ({ ...f, __n: i })),
      ),
    }),
  ),
  {
    route: 'cancel',
    method: 'POST',
    url: '/v1/tasks/:id/cancel',
    segments: fc.tuple(segment(taskId)),
    from: 'body',
    fields: rec({ agent, reason: fc.string({ maxLength: 30 }) }, ['agent']),
  },
  {
    route: 'put_artifact',
    method: 'PUT',
    url: '/v1/tasks/:id/artifacts/:artifact_id',
    segments: fc.tuple(
      segment(claimTaskId),
      fc.oneof(fc.constantFrom('log.txt', 'a1', 'report.md'), segment(n.map((i) => new Known('artifactId', i)))),
    ),
    from: 'none',
    fields: fc.constant({}),
    headers: hdrs({
      'coord-claim-id': fc.oneof(
        { weight: 4, arbitrary: n.map((i) => new Known('claimId', i)) },
        { weight: 1, arbitrary: hostileString.filter((s) => /^[\x20-\x7e]*$/.test(s) && s.length < 200) },
      ),
      'coord-name': fc.constantFrom('log.txt', '../../etc/passwd', '', 'x'.repeat(256), 'naïve.txt'),
      'content-type': contentType.filter((c) => c !== undefined) as fc.Arbitrary<string>,
    }),
  },
  {
    route: 'get_artifact',
    method: 'GET',
    url: '/v1/tasks/:id/artifacts/:artifact_id',
    segments: fc.tuple(
      segment(n.map((i) => new Known('artifactTask', i))),
      segment(n.map((i) => new Known('artifactId', i))),
    ),
    from: 'none',
    fields: fc.constant({}),
  },
  {
    route: 'inbox',
    method: 'GET',
    url: '/v1/inbox',
    segments: fc.constant([]),
    from: 'query',
    fields: rec({ agent, board, since: fc.nat(50), format: fc.constantFrom('text', 'json') }, ['agent']),
  },
  {
    route: 'events',
    method: 'GET',
    url: '/v1/events',
    segments: fc.constant([]),
    from: 'query',
    fields: rec({ board, since: fc.nat(50), limit: fc.integer({ min: 1, max: 1000 }), format: fc.constant('json') }),
    headers: hdrs({ 'last-event-id': fc.constantFrom('0', '3', '-1', 'abc', '1e309', '') }),
  },
  {
    route: 'openapi',
    method: 'GET',
    url: '/v1/openapi.json',
    segments: fc.constant([]),
    from: 'query',
    fields: rec({}),
  },
  { route: 'health', method: 'GET', url: '/v1/health', segments: fc.constant([]), from: 'query', fields: rec({}) },
  {
    route: 'agents',
    method: 'GET',
    url: '/v1/agents',
    segments: fc.constant([]),
    from: 'query',
    fields: rec({ board }),
  },
  {
    route: 'lock',
    method: 'POST',
    url: '/v1/locks',
    segments: fc.constant([]),
    from: 'body',
    fields: rec({ agent, resources: fc.oneof(files, fc.constant(CLIMBING_PATHS.slice(0, 3))), lease_s: lease, board }, [
      'agent',
      'resources',
    ]),
  },
  {
    route: 'renew_lock',
    method: 'POST',
    url: '/v1/locks/:lock_id/renew',
    segments: fc.tuple(segment(n.map((i) => new Known('lock', i)))),
    from: 'body',
    fields: rec({ lease_s: lease }),
  },
  {
    route: 'unlock',
    method: 'DELETE',
    url: '/v1/locks/:lock_id',
    segments: fc.tuple(segment(n.map((i) => new Known('lock', i)))),
    from: 'none',
    fields: fc.constant({}),
  },
  {
    route: 'list_locks',
    method: 'GET',
    url: '/v1/locks',
    segments: fc.constant([]),
    from: 'query',
    fields: rec({ board }),
  },
  ...(['GET', 'POST', 'DELETE', 'PATCH', 'OPTIONS'] as const).map(
    (method): RouteSpec => ({
      route: 'odd_url',
      method,
      url: '/:raw',
      segments: fc.tuple(fc.constantFrom(...ODD_URLS)),
      from: 'body',
      fields: rec({ agent, title: fc.constant('t') }),
    }),
  ),
];

function segment(known: fc.Arbitrary<Known>): fc.Arbitrary<Known | string> {
  return fc.oneof({ weight: 5, arbitrary: known }, { weight: 2, arbitrary: pathSegment(fc.constant('zzzzzzzz')) });
}

type Mutation =
  | { kind: 'none' }
  | { kind: 'set'; key: string; value: unknown }
  | { kind: 'drop'; key: string }
  | { kind: 'extra'; key: string; value: unknown }
  | { kind: 'raw'; raw: string };

/** Every field name any route takes: a mutation may set one the route does not expect, or one left out. */
const ALL_KEYS = [
  'title',
  'agent',
  'body',
  'kind',
  'priority',
  'labels',
  'for',
  'ttl_s',
  'idempotency_key',
  'board',
  'state',
  'label',
  'limit',
  'cursor',
  'lease_s',
  'files',
  'kinds',
  'wait_s',
  'claim_id',
  'to',
  'status',
  'result',
  'reason',
  'since',
  'format',
  'resources',
  'task_id',
  'lock_id',
];

const mutation = (present: string[]): fc.Arbitrary<Mutation> => {
  const keys = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...present) },
    { weight: 1, arbitrary: fc.constantFrom(...ALL_KEYS) },
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' } as Mutation) },
    {
      weight: 5,
      arbitrary: fc.record({ key: keys, value: hostileValue }).map((m) => ({ kind: 'set', ...m }) as Mutation),
    },
    { weight: 1, arbitrary: keys.map((key) => ({ kind: 'drop', key }) as Mutation) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          key: fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'state', 'claim_id'),
          value: hostileValue,
        })
        .map((m) => ({ kind: 'extra', ...m }) as Mutation),
    },
    { weight: 1, arbitrary: hostileRawBody.map((raw) => ({ kind: 'raw', raw }) as Mutation) },
  );
};

/** Now and then a request the guard must stop: no or a wrong token, a foreign Host or Origin (401/403, nothing written). */
const guardHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { authorization: '' },
      { authorization: 'Bearer wrong' },
      { authorization: 'Basic dGVzdDp0ZXN0' },
      { authorization: 'Bearer test-token-0123456789abcde' },
      { authorization: 'bearer  test-token-0123456789abcdef ' },
      { host: 'evil.example:7777' },
      { host: '127.0.0.1:7778' },
      { host: '' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: 'http://127.0.0.1:7777.evil.example' },
    ),
  },
);

const QUERY_KEYS = ['board', 'state', 'kind', 'label', 'agent', 'limit', 'cursor', 'since', 'format'];

/** A wait_s that would really wait is sent as a few milliseconds: the fuzzer must not long-poll for a minute. */
const noLongPoll = (key: string, v: unknown): unknown =>
  key === 'wait_s' && typeof v === 'number' && v > 0 && v <= 60 ? 0.005 : v;

function plan(spec: RouteSpec): fc.Arbitrary<RequestPlan> {
  const keysOf = (f: Record<string, unknown>) => Object.keys(f).filter((k) => k !== '__n');
  return fc
    .tuple(spec.segments, spec.fields, spec.headers ?? fc.constant({}), contentType, fc.nat(3), guardHeaders)
    .chain(([segs, fields, headers, ctype, sizeSel, guard]) =>
      fc
        .tuple(
          mutation(keysOf(fields).length ? keysOf(fields) : ['agent']),
          queryString(QUERY_KEYS, {}),
          fc.uint8Array({ maxLength: sizeSel === 0 ? 0 : 2048 }),
        )
        .map(([m, extraQuery, bytes]): RequestPlan => {
          let segments = segs;
          const f = own(Object.entries(fields).filter(([k]) => k !== '__n'));
          // A fenced call names the task of the claim whose claim_id it carries.
          const linked = typeof fields.__n === 'number' ? fields.__n : null;
          if (linked !== null) {
            segments = segments.map((s) =>
              s instanceof Known && s.pool === 'claimTask' ? new Known('claimTask', linked) : s,
            );
          }
          if (m.kind === 'set' || m.kind === 'extra') f[m.key] = noLongPoll(m.key, m.value);
          if (m.kind === 'drop') delete f[m.key];
          const base = {
            route: spec.route,
            method: spec.method,
            url: spec.url,
            segments,
            headers: { ...headers, ...guard } as Record<string, string | Known>,
          };
          if (spec.from === 'body') {
            if (ctype !== undefined) base.headers['content-type'] = ctype;
            return { ...base, query: '', body: m.kind === 'raw' ? { raw: m.raw } : { json: f } };
          }
          if (spec.from === 'query') {
            const q = Object.entries(f).map(([k, v]) => `${safeEncode(k)}=${safeEncode(queryValue(v))}`);
            const query = (q.length ? `?${q.join('&')}` : '') + extraQuery.replace(/^\?/, q.length ? '&' : '?');
            return { ...base, query, body: null };
          }
          if (spec.route === 'put_artifact') {
            return { ...base, query: '', body: m.kind === 'raw' ? { raw: m.raw } : { bytes: Buffer.from(bytes) } };
          }
          return { ...base, query: m.kind === 'raw' ? extraQuery : '', body: null };
        }),
    );
}

const queryValue = (v: unknown): string =>
  v instanceof Known ? `${v}` : v instanceof RawJson ? v.text : typeof v === 'string' ? v : jsonText(v);

export const requestPlan: fc.Arbitrary<RequestPlan> = fc.oneof(
  ...ROUTES.map((r) => ({ weight: r.route === 'odd_url' ? 1 : 3, arbitrary: plan(r) })),
);
export const ROUTE_NAMES = ROUTES.map((r) => r.route);
