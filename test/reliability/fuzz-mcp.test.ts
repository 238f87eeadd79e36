/**
 * Hostile arguments over MCP (issue 8, item 3): the official client over an
 * in-memory pair calls every tool the server lists with random and hostile
 * arguments mixed into mostly-valid ones.
 *
 * What a careful user expects, and what these tests hold coord to: a call of
 * a listed tool is never a JSON-RPC error, whatever its arguments — bad
 * arguments are a tool failure like any other, `isError: true` with text that
 * starts with `invalid_request: ` and names each field (the same words as over
 * HTTP), so a model can read and fix them. Only a tool that does not exist is
 * a protocol error. Never `internal`; nothing written by a refused call or by
 * a read; the server answers normally afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/core/errors.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { type McpAgent, type McpHarness, mcpHarness } from '../mcp/harness.js';
import { Known, type Pools, resolveKnown } from './fuzz-http-requests.js';
import { CLIMBING_PATHS, hostileValue, own, POLLUTED, PROTO_KEYS } from './hostile-inputs.js';

const RUNS = Number(process.env.COORD_FUZZ_MCP_RUNS ?? 1500);
const ROOT = '/work/repo';
const CLIENT_CODES = new Set<string>(ERROR_CODES.filter((c) => c !== 'internal' && c !== 'store_unavailable'));
const READS = new Set(['inbox', 'show_task', 'who']);

const n = fc.nat(1000);
const lease = fc.integer({ min: 1, max: 86_400 });
const repoFiles = fc.array(fc.constantFrom('src/a.ts', 'docs/', `${ROOT}/lib/b.ts`, './src//c.ts', `${ROOT}/`), {
  minLength: 1,
  maxLength: 3,
});

/** A valid-ish value for each argument name any tool takes. */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  title: fc.oneof(fc.constant('fix the flaky test'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 })),
  body: fc.string({ maxLength: 40 }),
  kind: fc.constantFrom('task', 'bug'),
  priority: fc.integer({ min: -1000, max: 1000 }),
  labels: fc.array(fc.constantFrom('ui', 'p1'), { maxLength: 2 }),
  for: fc.constantFrom('fuzzer', 'other'),
  ttl_s: fc.integer({ min: 60, max: 86_400 }),
  idempotency_key: fc.constantFrom('k1', 'k2'),
  since: fc.nat(40),
  task_id: n.map((i) => new Known('task', i)),
  files: repoFiles,
  lease_s: lease,
  wait_s: fc.constant(0),
  claim_id: n.map((i) => new Known('claimId', i)),
  status: fc.constantFrom('completed', 'failed'),
  result: fc.jsonValue({ maxDepth: 2 }),
  to: fc.constantFrom('other', 'fuzzer'),
  reason: fc.string({ maxLength: 20 }),
  artifact_id: fc.constantFrom('log.txt', 'a1'),
  name: fc.constantFrom('log.txt', '../../etc/passwd'),
  content: fc.oneof(fc.string({ maxLength: 50 }), fc.constant('aGVsbG8=')),
  encoding: fc.constantFrom('utf8', 'base64'),
  content_type: fc.constantFrom('text/plain', 'application/json'),
  lock_id: n.map((i) => new Known('lock', i)),
};

interface ToolSchema {
  name: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}

type Call = { tool: string; args: Record<string, unknown> };

/** For one listed tool: valid-ish arguments, then a hostile mutation (set, drop, extra key). */
function callFor(tool: ToolSchema): fc.Arbitrary<Call> {
  const keys = Object.keys(tool.inputSchema.properties ?? {});
  const shape = Object.fromEntries(keys.map((k) => [k, VALID[k] ?? hostileValue]));
  const required = (tool.inputSchema.required ?? []).filter((k) => keys.includes(k));
  const anyKey = fc.constantFrom(...keys, ...Object.keys(VALID), ...PROTO_KEYS, 'agent', 'board');
  const pairedTask = fc.constantFrom(true, false);
  return fc
    .tuple(
      fc.record(shape, { requiredKeys: required }),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        { weight: 5, arbitrary: fc.tuple(anyKey, hostileValue).map(([k, v]) => ({ set: k, v })) },
        { weight: 1, arbitrary: anyKey.map((k) => ({ drop: k })) },
      ),
      pairedTask,
      n,
    )
    .map(([valid, m, paired, i]) => {
      const args = own(Object.entries(valid));
      // A fenced call names the task of the claim it presents (or leaves claim_id out: the session remembers).
      if (paired && 'task_id' in args && 'claim_id' in shape) {
        args.task_id = new Known('claimTask', i);
        args.claim_id = i % 3 === 0 ? undefined : new Known('claimId', i);
      }
      if (m && 'set' in m)
        args[m.set] = m.set === 'wait_s' && typeof m.v === 'number' && m.v > 0 && m.v <= 60 ? 0.005 : m.v;
      if (m && 'drop' in m) delete args[m.drop];
      return { tool: tool.name, args };
    });
}

const resolve = (v: unknown, p: Pools): unknown => {
  if (v instanceof Known) return resolveKnown(v, p);
  if (Array.isArray(v)) return v.map((x) => resolve(x, p));
  if (v !== null && typeof v === 'object') return own(Object.entries(v).map(([k, x]) => [k, resolve(x, p)]));
  return v;
};

interface Answer {
  isError: boolean;
  text: string;
  data: any;
}

async function callRaw(a: McpAgent, name: string, args: unknown): Promise<Answer> {
  // JSON round trip: what a real client's arguments look like after the wire (own __proto__ keys, no undefined).
  const wire = JSON.parse(JSON.stringify(args ?? {}));
  const res = (await a.client.callTool({ name, arguments: wire })) as any;
  const text = res.content?.map((c: { text?: string }) => c.text ?? '').join('\n') ?? '';
  return { isError: res.isError === true, text, data: res._meta?.['coord/data'] };
}

describe('MCP fuzz', () => {
  let h: McpHarness;
  let a: McpAgent;
  let other: McpAgent;
  let tools: ToolSchema[];
  const pools: Pools = { tasks: [], claims: [], locks: [], artifacts: [] };
  const writes = () => {
    const db = (h.store as SqliteStore).db;
    return JSON.stringify(db.prepare('SELECT total_changes() AS c, (SELECT count(*) FROM events) AS e').get());
  };
  /** Events other than the inbox's own: SPEC §12 lets an inbox `since` past a message acknowledge it (`message.acked`, auto). */
  const events = () =>
    (
      (h.store as SqliteStore).db
        .prepare(`SELECT count(*) AS e FROM events WHERE NOT (type = 'message.acked' AND data LIKE '%"auto":true%')`)
        .get() as { e: number }
    ).e;
  const content = () => {
    const db = (h.store as SqliteStore).db;
    return JSON.stringify(
      ['tasks ORDER BY id', 'locks ORDER BY lock_id', 'lock_resources ORDER BY lock_id, resource'].map((t) =>
        db.prepare(`SELECT * FROM ${t}`).all(),
      ),
    );
  };

  before(async () => {
    h = await mcpHarness();
    a = await h.agent({ agent: 'fuzzer', root: ROOT });
    other = await h.agent({ agent: 'other', root: ROOT });
    tools = (await a.client.listTools()).tools as ToolSchema[];
    for (let i = 0; i < 6; i++) pools.tasks.push((await other.call('post_task', { title: `seed ${i}` })).data.task.id);
    for (const id of pools.tasks.slice(0, 3)) {
      const g = (await a.call('claim_task', { task_id: id, files: [`seed/${id}.ts`] })).data;
      pools.claims.push({ task_id: id, claim_id: g.claim_id });
      pools.locks.push(g.lock.lock_id);
    }
    pools.locks.push((await other.call('lock_files', { files: ['docs/'] })).data.lock_id);
  });
  after(async () => {
    await a.close();
    await other.close();
  });

  test('every listed tool, any arguments: a success or isError text starting with a SPEC §4 code — never internal, never a protocol error, nothing written when refused', async () => {
    const figures = {
      calls: 0,
      ok: 0,
      refused: 0,
      codes: {} as Record<string, number>,
      tools: {} as Record<string, number>,
    };
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort().join();
    await fc.assert(
      fc.asyncProperty(fc.oneof(...tools.map(callFor)), async (call) => {
        const args = resolve(call.args, pools) as Record<string, unknown>;
        const before = writes();
        // The inbox is a read of the board, but showing a message records its delivery and a `since` past a message
        // without ack_required acknowledges it (SPEC §12): it may write a receipt and that auto `message.acked`,
        // never a task, a lock or any other event.
        const beforeContent = call.tool === 'claim_task' || call.tool === 'inbox' ? content() : '';
        const beforeEvents = events();
        const res = await callRaw(a, call.tool, args);
        figures.calls++;
        figures.tools[call.tool] = (figures.tools[call.tool] ?? 0) + 1;
        const where = `${call.tool} ${JSON.stringify(args)?.slice(0, 300)} → ${res.text.slice(0, 300)}`;
        if (res.isError) {
          figures.refused++;
          const code = /^([a-z_]+): \S/.exec(res.text)?.[1] ?? '';
          figures.codes[code] = (figures.codes[code] ?? 0) + 1;
          assert.ok(CLIENT_CODES.has(code), `isError text does not start with a SPEC §4 code: ${where}`);
          assert.equal(res.data?.error?.code, code, `the result data disagrees with the text: ${where}`);
          assert.doesNotMatch(res.text, /\.(ts|js):\d+|SQLITE_|ZodError|TypeError|RangeError/, where);
          if (code === 'invalid_request') assert.ok(Array.isArray(res.data.error.issues), where);
        } else {
          figures.ok++;
          assert.ok(res.text.length > 0, `a success with no text: ${where}`);
        }
        if (res.isError || READS.has(call.tool)) {
          const lockUndo = call.tool === 'claim_task' && res.text.startsWith('lock_conflict');
          if (lockUndo) assert.equal(content(), beforeContent, `refused but wrote: ${where}`);
          else if (call.tool === 'inbox' && !res.isError) {
            assert.equal(content(), beforeContent, `the inbox changed the board: ${where}`);
            assert.equal(events(), beforeEvents, `the inbox wrote an event: ${where}`);
          } else assert.equal(writes(), before, `refused (or a read) but wrote: ${where}`);
        }
        if (!res.isError && res.data?.claim_id && res.data.task) {
          pools.claims.push({ task_id: res.data.task.id, claim_id: res.data.claim_id });
          if (res.data.lock) pools.locks.push(res.data.lock.lock_id);
        }
        if (!res.isError && call.tool === 'post_task') pools.tasks.push(res.data.task.id);
        if (!res.isError && call.tool === 'lock_files') pools.locks.push(res.data.lock_id);
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        includeErrorInReport: true,
        ...(process.env.COORD_FUZZ_SEED ? { seed: Number(process.env.COORD_FUZZ_SEED) } : {}),
      },
    );
    console.log(
      `# mcp fuzz: ${figures.calls} calls over ${Object.keys(figures.tools).length} tools, ${figures.ok} ok, ${figures.refused} isError, codes ${JSON.stringify(figures.codes)}`,
    );
    assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), protoBefore);
    assert.equal(({} as Record<string, unknown>)[POLLUTED], undefined);
    assert.equal(Object.keys(figures.tools).length, tools.length, 'every listed tool was called');
    assert.ok(figures.codes.invalid_request && figures.ok > 0);
  });

  test('after the storm the same session still answers: ping, post, claim, submit', async () => {
    await a.client.ping();
    const posted = await a.call('post_task', { title: 'calm again', for: 'fuzzer' });
    assert.equal(posted.isError, false, posted.text);
    const claimed = await a.call('claim_task', { task_id: posted.data.task.id });
    assert.equal(claimed.isError, false, claimed.text);
    const done = await a.call('submit_result', {
      task_id: posted.data.task.id,
      status: 'completed',
      result: { ok: 1 },
    });
    assert.equal(done.isError, false, done.text);
  });

  test('arguments that break the advertised schema are isError invalid_request naming each field, not a JSON-RPC error', async () => {
    const res = await callRaw(a, 'post_task', { title: 42, priority: 'high', labels: 'ui' });
    assert.equal(res.isError, true);
    assert.match(res.text, /^invalid_request: /);
    assert.deepEqual(res.data.error.issues.map((i: { path: string }) => i.path).sort(), [
      'labels',
      'priority',
      'title',
    ]);
  });

  test('a path outside the repository root is refused over MCP; one inside it is locked relative to the root', async () => {
    for (const p of ['/etc/passwd', `${ROOT}/../other/x`, ...CLIMBING_PATHS.slice(0, 3)]) {
      const res = await a.call('lock_files', { files: [p] });
      assert.equal(res.isError, true, p);
      assert.match(res.text, /^invalid_request: /, p);
    }
    const ok = await a.call('lock_files', { files: [`${ROOT}/inside/x.ts`] });
    assert.deepEqual(ok.data.resources, ['inside/x.ts']);
  });

  test('a tool that does not exist, or arguments that are not an object, are JSON-RPC protocol errors, and the session goes on', async () => {
    await assert.rejects(a.client.callTool({ name: 'drop_tables', arguments: {} }), /drop_tables|not found|Unknown/i);
    // MCP itself says arguments is an object: anything else is a malformed request, not a tool failure.
    for (const args of [[1, 2], 'str', 5]) {
      await assert.rejects(
        a.client.callTool({ name: 'post_task', arguments: args as unknown as Record<string, unknown> }),
        /arguments/,
      );
    }
    assert.equal((await a.call('who')).isError, false);
  });

  test('subscribing to hostile resource URIs is a protocol error each time; the inbox stays readable', async () => {
    const uris = [
      'coord://inbox/../../etc/passwd',
      'file:///etc/passwd',
      'coord://INBOX',
      '',
      'coord://inbox\u0000',
      '%00',
    ];
    for (const uri of uris) await assert.rejects(a.client.subscribeResource({ uri }), uri);
    const read = await a.client.readResource({ uri: 'coord://inbox' });
    assert.match(String((read.contents[0] as { text?: string }).text), /cursor/);
  });
});
