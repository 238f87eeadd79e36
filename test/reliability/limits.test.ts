/**
 * The input limits, pinned (issue 8, item 3): for each one the value at the
 * limit is accepted and one over is refused, with an error that names the
 * field and says the limit. Over HTTP in process, and over MCP where the
 * tool takes the field. The numbers come from the code (schemas.ts, paths.ts,
 * artifacts.ts, app.ts), so this file fails if a limit moves without it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_RESOURCE_CHARS } from '../../src/core/edits/paths.js';
import { MAX_ARTIFACT_BYTES } from '../../src/core/ops/artifacts.js';
import {
  MAX_BODY_CHARS,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_JSON_DEPTH,
  MAX_LABELS,
  MAX_RESOURCES,
  MAX_TITLE_CHARS,
} from '../../src/core/schemas.js';
import { JSON_LIMIT } from '../../src/server/http/app.js';
import { type McpAgent, type McpHarness, mcpHarness } from '../mcp/harness.js';
import { type HttpHarness, httpHarness } from '../support/http.js';

const x = (n: number) => 'x'.repeat(n);
const files = (n: number) => Array.from({ length: n }, (_, i) => `limits/f${i}.ts`);
const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);

let h: HttpHarness;
let board = 0;
/** Each case posts on its own board, so claims and locks of one never meet another's. */
const fresh = () => `limits-${++board}`;

before(async () => {
  h = await httpHarness();
});
after(() => h.app.close());

/** One limit: the request at the limit and one over; the refusal must name `path` and match `says`. */
interface Limit {
  name: string;
  send: (value: number, board: string) => Promise<{ status: number; json: any }>;
  at: number;
  path: string | RegExp;
  says: RegExp;
  okStatus?: number;
}

const post = (body: Record<string, unknown>) => h.req('POST', '/v1/tasks', { agent: 'limits', ...body });
async function claimed(b: string): Promise<{ id: string; claim_id: string }> {
  const id = (await post({ title: 't', board: b })).json.task.id;
  const c = (await h.req('POST', `/v1/tasks/${id}/claim`, { agent: 'limits' })).json;
  return { id, claim_id: c.claim_id };
}

const LIMITS: Limit[] = [
  {
    name: 'title',
    at: MAX_TITLE_CHARS,
    send: (n, b) => post({ title: x(n), board: b }),
    path: 'title',
    says: /<=500 characters/,
    okStatus: 201,
  },
  {
    name: 'body',
    at: MAX_BODY_CHARS,
    send: (n, b) => post({ title: 't', body: x(n), board: b }),
    path: 'body',
    says: /<=65536 characters/,
    okStatus: 201,
  },
  {
    name: 'labels count',
    at: MAX_LABELS,
    send: (n, b) => post({ title: 't', labels: Array.from({ length: n }, (_, i) => `l${i}`), board: b }),
    path: 'labels',
    says: /<=20 items/,
    okStatus: 201,
  },
  {
    name: 'label size',
    at: 40,
    send: (n, b) => post({ title: 't', labels: [x(n)], board: b }),
    path: 'labels.0',
    says: /<=40 characters/,
    okStatus: 201,
  },
  {
    name: 'idempotency_key length',
    at: MAX_IDEMPOTENCY_KEY_CHARS,
    send: (n, b) => post({ title: 't', idempotency_key: x(n), board: b }),
    path: 'idempotency_key',
    says: /<=200 characters/,
    okStatus: 201,
  },
  {
    name: 'agent name',
    at: 64,
    send: (n, b) => h.req('POST', '/v1/tasks', { title: 't', agent: x(n), board: b }),
    path: 'agent',
    says: /1–64 characters/,
    okStatus: 201,
  },
  {
    name: 'board name',
    at: 64,
    send: (n) => h.req('GET', `/v1/tasks?board=${x(n)}`),
    path: 'board',
    says: /1–64 characters/,
  },
  {
    name: 'priority',
    at: 1000,
    send: (n, b) => post({ title: 't', priority: n, board: b }),
    path: 'priority',
    says: /<=1000/,
    okStatus: 201,
  },
  {
    name: 'ttl_s',
    at: 30 * 86_400,
    send: (n, b) => post({ title: 't', ttl_s: n, board: b }),
    path: 'ttl_s',
    says: /<=2592000/,
    okStatus: 201,
  },
  {
    name: 'resources per lock',
    at: MAX_RESOURCES,
    send: (n, b) => h.req('POST', '/v1/locks', { agent: 'limits', resources: files(n), board: b }),
    path: 'resources',
    says: /<=256 items/,
    okStatus: 201,
  },
  {
    name: 'files per claim',
    at: MAX_RESOURCES,
    send: async (n, b) => {
      const id = (await post({ title: 't', board: b })).json.task.id;
      return h.req('POST', `/v1/tasks/${id}/claim`, { agent: 'limits', files: files(n).map((f) => `${b}/${f}`) });
    },
    path: 'files',
    says: /<=256 items/,
  },
  {
    name: 'resource key length',
    at: MAX_RESOURCE_CHARS,
    send: (n, b) => h.req('POST', '/v1/locks', { agent: 'limits', resources: [x(n)], board: b }),
    path: 'resources.0',
    says: /longer than 1024 characters/,
    okStatus: 201,
  },
  {
    name: 'list page size (limit)',
    at: 500,
    send: (n) => h.req('GET', `/v1/tasks?limit=${n}`),
    path: 'limit',
    says: /<=500/,
  },
  {
    name: 'events page size (limit)',
    at: 1000,
    send: (n) => h.req('GET', `/v1/events?format=json&limit=${n}`),
    path: 'limit',
    says: /<=1000/,
  },
  {
    name: 'lease_s',
    at: 86_400,
    send: async (n, b) => {
      const id = (await post({ title: 't', board: b })).json.task.id;
      return h.req('POST', `/v1/tasks/${id}/claim`, { agent: 'limits', lease_s: n });
    },
    path: 'lease_s',
    says: /<=86400/,
  },
  {
    name: 'wait_s',
    at: 60,
    send: async (n, b) => {
      // Something to claim, so the call at the limit answers at once instead of long-polling.
      await post({ title: 't', board: b });
      return h.req('POST', '/v1/claim', { agent: 'limits', board: b, wait_s: n });
    },
    path: 'wait_s',
    says: /<=60/,
  },
  {
    name: 'cancel reason',
    at: 1000,
    send: async (n, b) => {
      const id = (await post({ title: 't', board: b })).json.task.id;
      return h.req('POST', `/v1/tasks/${id}/cancel`, { agent: 'limits', reason: x(n) });
    },
    path: 'reason',
    says: /<=1000 characters/,
  },
  {
    name: 'result nesting depth',
    at: MAX_JSON_DEPTH,
    send: async (n, b) => {
      const c = await claimed(b);
      return h.req('POST', `/v1/tasks/${c.id}/submit`, {
        claim_id: c.claim_id,
        status: 'completed',
        result: nested(n),
      });
    },
    path: /^result(\.0)*$/,
    says: /deeper than 100 levels/,
  },
];

describe('input limits over HTTP: at the limit accepted, one over refused naming the field and the limit', () => {
  for (const l of LIMITS) {
    test(`${l.name}: ${l.at} is accepted, ${l.at + 1} is invalid_request naming ${l.path}`, async () => {
      const ok = await l.send(l.at, fresh());
      assert.equal(ok.status, l.okStatus ?? 200, JSON.stringify(ok.json).slice(0, 300));
      const over = await l.send(l.at + 1, fresh());
      assert.equal(over.status, 400, JSON.stringify(over.json).slice(0, 300));
      assert.equal(over.json.error.code, 'invalid_request');
      const issue = over.json.error.issues[0];
      if (typeof l.path === 'string') assert.equal(issue.path, l.path);
      else assert.match(issue.path, l.path);
      assert.match(issue.message, l.says);
      assert.ok(over.json.error.message.includes(issue.path), 'the message names the field too');
    });
  }
  console.log(`# limits: ${LIMITS.length} limits checked at and one over over HTTP`);

  test(`a JSON body of exactly ${JSON_LIMIT} bytes is accepted; one byte more is 413 too_large saying 1 MiB`, async () => {
    const core = JSON.stringify({ title: 'big body', agent: 'limits', board: fresh() });
    const at = core + ' '.repeat(JSON_LIMIT - Buffer.byteLength(core));
    assert.equal(Buffer.byteLength(at), JSON_LIMIT);
    const ok = await h.req('POST', '/v1/tasks', at, { 'content-type': 'application/json' });
    assert.equal(ok.status, 201);
    const over = await h.req('POST', '/v1/tasks', `${at} `, { 'content-type': 'application/json' });
    assert.equal(over.status, 413);
    assert.equal(over.json.error.code, 'too_large');
    assert.match(over.json.error.message, /1 MiB/);
  });

  test(`an artifact of exactly ${MAX_ARTIFACT_BYTES} bytes is accepted; one byte more is 413 too_large saying 16 MiB, and nothing is stored`, async () => {
    const c = await claimed(fresh());
    const put = (bytes: Buffer, id: string) =>
      h.req('PUT', `/v1/tasks/${c.id}/artifacts/${id}`, bytes, {
        'coord-claim-id': c.claim_id,
        'content-type': 'application/octet-stream',
      });
    const at = Buffer.alloc(MAX_ARTIFACT_BYTES, 7);
    const ok = await put(at, 'at-limit');
    assert.equal(ok.status, 201);
    assert.equal(ok.json.artifact.size, MAX_ARTIFACT_BYTES);
    const over = await put(Buffer.alloc(MAX_ARTIFACT_BYTES + 1, 7), 'over-limit');
    assert.equal(over.status, 413);
    assert.equal(over.json.error.code, 'too_large');
    assert.match(over.json.error.message, /16 MiB/);
    assert.equal((await h.req('GET', `/v1/tasks/${c.id}/artifacts/over-limit`)).status, 404);
  });
});

describe('NUL is refused in every free-text field, naming it (one rule for both stores)', () => {
  const NUL = 'a\u0000b';
  const cases: [string, () => Promise<{ status: number; json: any }>, string][] = [
    ['title', () => post({ title: NUL }), 'title'],
    ['body', () => post({ title: 't', body: NUL }), 'body'],
    ['label', () => post({ title: 't', labels: [NUL] }), 'labels.0'],
    ['idempotency_key', () => post({ title: 't', idempotency_key: NUL }), 'idempotency_key'],
    [
      'cancel reason',
      async () => {
        const id = (await post({ title: 't' })).json.task.id;
        return h.req('POST', `/v1/tasks/${id}/cancel`, { agent: 'limits', reason: NUL });
      },
      'reason',
    ],
    [
      'claim_id',
      async () => {
        const c = await claimed(fresh());
        return h.req('POST', `/v1/tasks/${c.id}/heartbeat`, { claim_id: `${c.claim_id}\u0000` });
      },
      'claim_id',
    ],
    ['lock_id', () => h.req('POST', `/v1/locks/${encodeURIComponent(NUL)}/renew`, {}), 'lock_id'],
    ['label filter', () => h.req('GET', `/v1/tasks?label=${encodeURIComponent(NUL)}`), 'label'],
    ['resource', () => h.req('POST', '/v1/locks', { agent: 'limits', resources: [NUL] }), 'resources.0'],
  ];
  for (const [name, send, path] of cases) {
    test(`${name} with NUL is invalid_request naming ${path}`, async () => {
      const res = await send();
      assert.equal(res.status, 400, JSON.stringify(res.json));
      assert.equal(res.json.error.issues[0].path, path);
      assert.match(res.json.error.issues[0].message, /NUL/);
    });
  }
  test('one-line fields (title, label, cancel reason) refuse control characters such as ESC and newline, naming the field; a tab is kept and a title is trimmed first', async () => {
    for (const bad of ['a\u001b[2Jb', 'line one\n* #zzzzzzzz forged', 'x\u0085y', 'bell\u0007']) {
      for (const [path, send] of [
        ['title', () => post({ title: bad })],
        ['labels.0', () => post({ title: 't', labels: [bad] })],
        [
          'reason',
          async () => {
            const task = (await post({ title: 'to cancel', board: fresh() })).json.task;
            return h.req('POST', `/v1/tasks/${task.id}/cancel`, { agent: 'limits', reason: bad });
          },
        ],
      ] as const) {
        const res = await send();
        assert.equal(res.status, 400, `${path} ${JSON.stringify(bad)}: ${JSON.stringify(res.json)}`);
        assert.equal(res.json.error.issues[0].path, path);
        assert.match(res.json.error.issues[0].message, /control characters/);
      }
    }
    const ok = await post({ title: ' \ttabbed\ttitle \n', labels: ['a\tb'] });
    assert.equal(ok.status, 201, JSON.stringify(ok.json));
    assert.equal(ok.json.task.title, 'tabbed\ttitle');
    assert.deepEqual(ok.json.task.labels, ['a\tb']);
  });

  test('a NUL inside a result is kept, not refused: results are stored as JSON text, where it is an escape', async () => {
    const c = await claimed(fresh());
    const res = await h.req('POST', `/v1/tasks/${c.id}/submit`, {
      claim_id: c.claim_id,
      status: 'completed',
      result: { log: NUL },
    });
    assert.equal(res.status, 200);
    assert.equal((await h.req('GET', `/v1/tasks/${c.id}`)).json.task.result.log, NUL);
  });
});

describe('the same limits over MCP: a tool answers isError invalid_request naming the field', () => {
  let agent: McpAgent;
  let m: McpHarness;
  before(async () => {
    m = await mcpHarness();
    agent = await m.agent({ agent: 'limits', root: '/repo' });
  });
  after(() => agent.close());

  const cases: [string, string, (n: number) => Record<string, unknown>, number, string][] = [
    ['title', 'post_task', (n) => ({ title: x(n) }), MAX_TITLE_CHARS, 'title'],
    ['labels count', 'post_task', (n) => ({ title: 't', labels: files(n).slice(0, n) }), MAX_LABELS, 'labels'],
    [
      'idempotency_key',
      'post_task',
      (n) => ({ title: 't', idempotency_key: x(n) }),
      MAX_IDEMPOTENCY_KEY_CHARS,
      'idempotency_key',
    ],
    [
      'files per lock',
      'lock_files',
      (n) => ({ files: files(n).map((f) => `mcp-${n}/${f}`) }),
      MAX_RESOURCES,
      'resources',
    ],
  ];
  for (const [name, tool, args, at, path] of cases) {
    test(`${tool} ${name}: ${at} is accepted, ${at + 1} is isError invalid_request naming ${path}`, async () => {
      const ok = await agent.call(tool, args(at));
      assert.equal(ok.isError, false, ok.text);
      const over = await agent.call(tool, args(at + 1));
      assert.equal(over.isError, true);
      assert.match(over.text, new RegExp(`^invalid_request: .*${path}`));
      assert.equal(over.data.error.issues[0].path, path);
    });
  }
  test('upload_artifact with a content_type that is not printable ASCII (CR/LF, non-ASCII) is isError invalid_request naming content_type, and nothing is stored', async () => {
    const { data } = await agent.call('post_task', { title: 'artifact content types' });
    const claim = await agent.call('claim_task', { task_id: data.task.id });
    assert.equal(claim.isError, false, claim.text);
    for (const [i, content_type] of ['text/plain\r\nX-Evil: 1', 'text/plain; name=café'].entries()) {
      const res = await agent.call('upload_artifact', {
        task_id: data.task.id,
        artifact_id: `ct-${i}`,
        name: 'a.txt',
        content: 'x',
        content_type,
      });
      assert.equal(res.isError, true, res.text);
      assert.match(res.text, /^invalid_request: .*content_type/);
      assert.equal(await m.store.getArtifact(data.task.id, `ct-${i}`), null, 'nothing stored');
    }
    const ok = await agent.call('upload_artifact', {
      task_id: data.task.id,
      artifact_id: 'ct-ok',
      name: 'a.txt',
      content: 'x',
      content_type: 'text/plain; charset=utf-8',
    });
    assert.equal(ok.isError, false, ok.text);
    assert.equal(
      (await m.store.getArtifact(data.task.id, 'ct-ok'))?.artifact.content_type,
      'text/plain; charset=utf-8',
    );
  });

  test('post_task with NUL in the title is isError invalid_request naming title', async () => {
    const res = await agent.call('post_task', { title: 'a\u0000b' });
    assert.equal(res.isError, true);
    assert.match(res.text, /^invalid_request: invalid input: title: .*NUL/);
  });
});
