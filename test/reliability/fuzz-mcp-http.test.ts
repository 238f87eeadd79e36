/**
 * Hostile JSON-RPC at /mcp (Streamable HTTP), in process through inject: the
 * transport layer the in-memory MCP fuzz does not reach. Garbage bodies,
 * batches, wrong versions, unknown or forged session ids, odd Accept headers,
 * tools/call with hostile arguments. Whatever arrives: never a 5xx; an error
 * is a JSON-RPC error (the MCP protocol's own shape) or, from the guard,
 * coord's; a tool result is a success or isError text starting with a SPEC §4
 * code, never internal; nothing written by a refusal; the session goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/core/errors.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { type HttpHarness, httpHarness, TEST_PORT, TEST_TOKEN } from '../support/http.js';
import { hostileRawBody, hostileString, hostileValue, jsonText, own } from './hostile-inputs.js';

const RUNS = Number(process.env.COORD_FUZZ_MCP_HTTP_RUNS ?? 600);
const CLIENT_CODES = new Set<string>(ERROR_CODES.filter((c) => c !== 'internal' && c !== 'store_unavailable'));
const TOOLS = ['post_task', 'inbox', 'claim_task', 'show_task', 'lock_files', 'submit_result', 'who', 'nope'];
const ACCEPTS = ['application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', ''];

interface Reply {
  status: number;
  contentType: string;
  /** JSON-RPC messages: the JSON body, or each `data:` of an event stream. */
  messages: any[];
  text: string;
  sessionId: string | undefined;
}

describe('MCP over Streamable HTTP: hostile JSON-RPC', () => {
  let h: HttpHarness;
  let sid = '';
  const writes = () =>
    JSON.stringify(
      (h.store as SqliteStore).db.prepare('SELECT total_changes() AS c, (SELECT count(*) FROM events) AS e').get(),
    );

  async function post(body: string, headers: Record<string, string> = {}, method: 'POST' | 'GET' | 'DELETE' = 'POST') {
    const res = await h.app.inject({
      method,
      url: '/mcp',
      headers: {
        host: `127.0.0.1:${TEST_PORT}`,
        authorization: `Bearer ${TEST_TOKEN}`,
        'content-type': 'application/json',
        accept: ACCEPTS[0]!,
        ...headers,
      },
      ...(method === 'POST' ? { payload: body } : {}),
      payloadAsStream: true,
    });
    const contentType = String(res.headers['content-type'] ?? '');
    const stream = res.stream();
    // A GET opens the session's standing event stream, which never ends: read its head only.
    if (method === 'GET' && contentType.startsWith('text/event-stream')) {
      stream.destroy();
      return { status: res.statusCode, contentType, messages: [], text: '', sessionId: undefined } as Reply;
    }
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(Buffer.from(c));
    const text = Buffer.concat(chunks).toString('utf8');
    const messages: any[] = [];
    if (contentType.startsWith('text/event-stream')) {
      for (const line of text.split('\n')) if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)));
    } else if (text) {
      try {
        const j = JSON.parse(text);
        messages.push(...(Array.isArray(j) ? j : [j]));
      } catch {
        messages.push({ unparsable: text });
      }
    }
    const sessionId = res.headers['mcp-session-id'] as string | undefined;
    return { status: res.statusCode, contentType, messages, text, sessionId } as Reply;
  }

  before(async () => {
    h = await httpHarness();
    const init = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      }),
      { 'coord-agent': 'fuzzer' },
    );
    assert.equal(init.status, 200, init.text);
    sid = init.sessionId ?? '';
    assert.ok(sid);
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': sid });
  });
  after(() => h.app.close());

  const call = (id: number, tool: string, args: unknown) =>
    jsonText(
      own([
        ['jsonrpc', '2.0'],
        ['id', id],
        ['method', 'tools/call'],
        [
          'params',
          own([
            ['name', tool],
            ['arguments', args],
          ]),
        ],
      ]),
    );

  const message = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(
          fc.nat(1e6),
          fc.constantFrom(...TOOLS),
          fc.dictionary(fc.constantFrom('title', 'task_id', 'files', 'since', 'status', '__proto__'), hostileValue, {
            maxKeys: 3,
          }),
        )
        .map(([id, tool, args]) => call(id, tool, args)),
    },
    { weight: 2, arbitrary: hostileRawBody },
    {
      weight: 2,
      arbitrary: fc
        .record(
          {
            jsonrpc: fc.constantFrom('2.0', '1.0', 2, null),
            id: fc.oneof(fc.nat(), hostileString, fc.constant(null), fc.constant({})),
            method: fc.oneof(
              fc.constantFrom(
                'tools/list',
                'tools/call',
                'resources/read',
                'resources/subscribe',
                'ping',
                'initialize',
                'prompts/list',
              ),
              hostileString,
            ),
            params: hostileValue,
          },
          { requiredKeys: [] },
        )
        .map((m) => jsonText(m)),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(
          fc.nat(100).map((id) => call(id, 'who', {})),
          { minLength: 0, maxLength: 3 },
        )
        .map((xs) => `[${xs.join(',')}]`),
    },
  );
  const mostly = <T>(usual: T, odd: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 8, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: odd });
  const headers = fc.record({
    'mcp-session-id': mostly(
      '__sid__',
      fc.oneof(
        fc.constant('00000000-0000-4000-8000-000000000000'),
        hostileString.filter((s) => /^[\x21-\x7e]{1,80}$/.test(s)),
      ),
    ),
    accept: mostly(ACCEPTS[0]!, fc.constantFrom(...ACCEPTS)),
    'content-type': mostly('application/json', fc.constantFrom('text/plain', 'application/json; charset=utf-16')),
    'mcp-protocol-version': mostly('2025-06-18', fc.constantFrom('1999-01-01', 'x')),
  });

  test('any JSON-RPC at /mcp: never a 5xx, errors in JSON-RPC or coord shape, tools never internal, refusals write nothing', async () => {
    const figures = { requests: 0, statuses: {} as Record<string, number>, toolResults: 0, rpcErrors: 0 };
    await fc.assert(
      fc.asyncProperty(
        message,
        headers,
        fc.constantFrom('POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'DELETE'),
        async (body, hdrs, method) => {
          // DELETE ends the session; keep the fuzzer's own one alive.
          const own = {
            ...hdrs,
            'mcp-session-id': hdrs['mcp-session-id'] === '__sid__' ? sid : hdrs['mcp-session-id'],
          };
          if (method === 'DELETE' && own['mcp-session-id'] === sid) own['mcp-session-id'] = 'not-the-live-session';
          const before = writes();
          const r = await post(body, own as Record<string, string>, method as 'POST');
          figures.requests++;
          figures.statuses[r.status] = (figures.statuses[r.status] ?? 0) + 1;
          const where = `${method} ${body.slice(0, 200)} ${JSON.stringify(own)} → ${r.status} ${r.text.slice(0, 300)}`;
          assert.ok(r.status < 500, `a 5xx: ${where}`);
          let refused = r.status >= 400;
          for (const m of r.messages) {
            assert.ok(!('unparsable' in m) || r.status < 300 || r.text === '', `an answer that is not JSON: ${where}`);
            if (m.error && typeof m.error.code === 'number') {
              figures.rpcErrors++;
              refused = true;
              assert.equal(typeof m.error.message, 'string', where);
            } else if (m.error) {
              assert.ok(CLIENT_CODES.has(m.error.code), `neither JSON-RPC nor coord error shape: ${where}`);
            } else if (m.result?.content) {
              figures.toolResults++;
              const text = m.result.content.map((c: { text?: string }) => c.text ?? '').join('\n');
              if (m.result.isError) {
                refused = true;
                const code = /^([a-z_]+): /.exec(text)?.[1] ?? '';
                assert.ok(CLIENT_CODES.has(code), `tool error without a SPEC §4 code: ${where}`);
              }
            }
          }
          if (refused) assert.equal(writes(), before, `refused but wrote: ${where}`);
        },
      ),
      { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
    );
    console.log(
      `# mcp http fuzz: ${figures.requests} requests, statuses ${JSON.stringify(figures.statuses)}, ${figures.toolResults} tool results, ${figures.rpcErrors} JSON-RPC errors`,
    );
    // The session still works after all that.
    const ok = await post(call(999_999, 'post_task', { title: 'still here' }), { 'mcp-session-id': sid });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.messages[0]?.result?.isError, undefined, ok.text);
    assert.match(ok.messages[0].result.content[0].text, /^posted #/);
  });
});
