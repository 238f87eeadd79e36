/**
 * Nothing leaks in process (issue 8, item 5): a store failure carrying SQL text and a stack reaches
 * an HTTP or MCP client only as a generic `internal`; the logger redacts credentials; the serve
 * flags resolve once, and only a flag opens the network.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveDaemonConfig } from '../../src/server/config.js';
import { makeLogger } from '../../src/server/logger.js';
import { mcpHarness } from '../mcp/harness.js';
import { httpHarness } from '../support/http.js';

describe('no stack trace or SQL text reaches a client', () => {
  const sqlFailures = (): unknown[] => {
    const e1 = new Error('SQLITE_ERROR: near "SELCT": syntax error in SELCT * FROM tasks WHERE board = @board');
    const e2 = Object.assign(new Error('UNIQUE constraint failed: tasks.board, tasks.idempotency_key'), {
      code: 'SQLITE_CONSTRAINT_UNIQUE',
    });
    const e3 = Object.assign(new Error('relation "tasks" does not exist'), {
      code: '42P01',
      detail: 'SELECT * FROM tasks WHERE id = $1',
      query: 'SELECT * FROM tasks WHERE id = $1',
    });
    return [e1, e2, e3, 'SELECT * FROM tasks -- thrown as a string', { sql: 'DELETE FROM tasks' }];
  };
  const LEAKS = /SELCT|SELECT|FROM tasks|DELETE|constraint|relation|SQLITE|42P01|\.ts:\d|node:internal|\n\s+at /;

  test('an HTTP request whose store call throws SQL text gets 500 internal with a generic message', async () => {
    const h = await httpHarness();
    const store = h.store as unknown as Record<string, unknown>;
    let tried = 0;
    try {
      for (const failure of sqlFailures()) {
        const boom = async () => {
          throw failure;
        };
        for (const m of ['listTasks', 'getTask', 'createTask', 'inbox', 'acquireLocks']) store[m] = boom;
        const calls: [string, string, unknown][] = [
          ['GET', '/v1/tasks', undefined],
          ['GET', '/v1/tasks/abc', undefined],
          ['POST', '/v1/tasks', { title: 't', agent: 'a' }],
          ['GET', '/v1/inbox?agent=a', undefined],
          ['POST', '/v1/locks', { agent: 'a', resources: ['x.ts'] }],
        ];
        for (const [method, url, body] of calls) {
          const res = await h.req(method as 'GET' | 'POST', url, body);
          tried++;
          assert.equal(res.status, 500, `${method} ${url}: ${res.text}`);
          assert.equal(res.json.error.code, 'internal');
          assert.doesNotMatch(res.text, LEAKS, `${method} ${url} leaked: ${res.text}`);
        }
      }
    } finally {
      await h.app.close();
    }
    console.log(`# HTTP calls with a failing store: ${tried}, leaks: 0`);
  });

  test('an MCP tool whose store call throws SQL text returns isError "internal: …" without it', async () => {
    const h = await mcpHarness();
    const store = h.store as unknown as Record<string, unknown>;
    const agent = await h.agent({ agent: 'mcp-a' });
    let tried = 0;
    try {
      for (const failure of sqlFailures()) {
        const boom = async () => {
          throw failure;
        };
        for (const m of ['getTask', 'createTask', 'inbox', 'acquireLocks', 'claimNext']) store[m] = boom;
        const calls: [string, Record<string, unknown>][] = [
          ['show_task', { task_id: 'abc' }],
          ['post_task', { title: 't' }],
          ['inbox', {}],
          ['lock_files', { files: ['x.ts'] }],
          ['claim_task', {}],
        ];
        for (const [name, args] of calls) {
          const a = await agent.call(name, args);
          tried++;
          assert.equal(a.isError, true, `${name}: ${a.text}`);
          assert.match(a.text, /^internal: /, `${name}: ${a.text}`);
          assert.doesNotMatch(a.text, LEAKS, `${name} leaked: ${a.text}`);
          assert.doesNotMatch(JSON.stringify(a.data ?? {}), LEAKS, `${name} leaked in the result data`);
        }
      }
    } finally {
      await agent.close();
    }
    console.log(`# MCP tool calls with a failing store: ${tried}, leaks: 0`);
  });
});

test('serve flags resolve once: --host binds (loopback by default), --allow-host and COORD_ALLOWED_HOSTS add Host names', () => {
  const env = { COORD_ALLOWED_HOSTS: 'a.test:1,b.test:2' };
  const base = resolveDaemonConfig({}, {});
  assert.equal(base.host, '127.0.0.1');
  assert.deepEqual(base.allowedHosts, []);
  const c = resolveDaemonConfig({ host: '0.0.0.0', allowHost: ['coord.local:7777'] }, env);
  assert.equal(c.host, '0.0.0.0');
  assert.deepEqual(c.allowedHosts, ['coord.local:7777', 'a.test:1', 'b.test:2']);
  assert.equal(resolveDaemonConfig({ host: 'localhost' }, {}).host, '127.0.0.1');
  assert.equal(resolveDaemonConfig({ host: '[::1]' }, {}).host, '::1');
  // The environment never opens the network: only the flag does.
  assert.equal(resolveDaemonConfig({}, { COORD_HOST: '0.0.0.0' }).host, '127.0.0.1');
  assert.throws(() => resolveDaemonConfig({ host: 'coord.local' }, {}), /--host must be an IP address/);
});

test('the logger redacts authorization headers and token fields wherever they are nested', () => {
  let out = '';
  const log = makeLogger('trace', {
    write: (s: string) => {
      out += s;
    },
  });
  const secret = `secret-${crypto.randomUUID()}`;
  log.info({ req: { headers: { authorization: `Bearer ${secret}`, cookie: secret } } }, 'a request');
  log.info({ headers: { authorization: `Bearer ${secret}` } }, 'headers');
  log.debug({ authorization: `Bearer ${secret}`, token: secret }, 'top level');
  log.trace({ client: { token: secret, authorization: secret } }, 'nested');
  assert.equal(out.trim().split('\n').length, 4);
  assert.ok(!out.includes(secret), out);
  assert.equal(out.match(/\[redacted\]/g)?.length, 7);
});
