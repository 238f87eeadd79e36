/** Declared once: the client's requests, the server's statuses and the OpenAPI document all read api/routes.ts. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { routes, successStatus, successStatuses } from '../../src/api/routes.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { query, requestFor, routeOf } from '../../src/client/call.js';
import { ERROR_CODES } from '../../src/core/errors.js';
import { operations } from '../../src/core/operations.js';
import { STATUS } from '../../src/server/http/errors.js';
import { openApiDocument } from '../../src/server/http/openapi.js';
import { ROOT } from '../support/daemon.js';

const tsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });

describe('call(op, input) over the route table', () => {
  test('path parameters are filled in and escaped; the rest of the input is the body or the query', () => {
    assert.deepEqual(requestFor(operations.claimTask, { task_id: 'a b/c', agent: 'me', lease_s: 30 }), {
      method: 'POST',
      path: '/v1/tasks/a%20b%2Fc/claim',
      body: { agent: 'me', lease_s: 30 },
    });
    assert.deepEqual(requestFor(operations.listTasks, { board: 'x', agent: undefined, limit: 5 }), {
      method: 'GET',
      path: '/v1/tasks?board=x&limit=5',
    });
    assert.deepEqual(requestFor(operations.unlockFiles, { lock_id: 'L1' }), {
      method: 'DELETE',
      path: '/v1/locks/L1',
    });
    assert.equal(query({ label: ['a', 'b'], none: undefined }), '?label=a&label=b');
  });

  test('every route names a different operation, so an operation finds its one route', () => {
    for (const route of routes) assert.equal(routeOf({ name: route.op }), route, route.op);
  });

  test('no file under src/cli writes a /v1/ URL by hand', () => {
    const handWritten = tsFiles(join(ROOT, 'src/cli')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/['"`]\/v1\//.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(handWritten, []);
  });
});

describe('success statuses as data', () => {
  const route = (url: string, method = 'POST') => {
    const r = routes.find((x) => x.url === url && x.method === method);
    assert.ok(r, url);
    return r;
  };

  test('a new task is 201 and the same intent again 200; nothing to claim is 204; a new lock is 201', () => {
    assert.equal(successStatus(route('/v1/tasks'), { created: true }), 201);
    assert.equal(successStatus(route('/v1/tasks'), { created: false }), 200);
    assert.equal(successStatus(route('/v1/claim'), null), 204);
    assert.equal(successStatus(route('/v1/claim'), { claim_id: 'c' }), 200);
    assert.equal(successStatus(route('/v1/locks'), { lock_id: 'l' }), 201);
    assert.equal(successStatus(route('/v1/tasks', 'GET'), { tasks: [] }), 200);
  });

  test('the OpenAPI document lists exactly the statuses each route can answer', () => {
    const paths = openApiDocument('test').paths as Record<string, Record<string, { responses: object }>>;
    for (const r of routes) {
      const doc = paths[r.url.replace(/:([a-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()];
      assert.ok(doc, `${r.method} ${r.url} is documented`);
      const listed = Object.keys(doc.responses).filter((k) => k !== 'default');
      assert.deepEqual(listed.sort(), successStatuses(r).map(String).sort(), `${r.method} ${r.url}`);
    }
  });
});

describe('answers derived from the error code', () => {
  test('a code is a CLI conflict (exit 2) exactly when it is HTTP 409; unavailable is 503 and exit 3', () => {
    for (const code of ERROR_CODES) {
      assert.equal(exitCodeFor(code) === EXIT.conflict, STATUS[code] === 409, code);
      assert.equal(exitCodeFor(code) === EXIT.unreachable, STATUS[code] === 503, code);
    }
    assert.equal(exitCodeFor('unreachable'), EXIT.unreachable);
    assert.equal(exitCodeFor('a_code_from_a_newer_daemon'), EXIT.usage);
  });
});
