import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpHarness, httpHarness } from '../support/http.js';

describe('the HTTP API for dependencies and plans (SPEC §11)', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());

  test('POST /v1/plans answers 201 with the tasks by ref, 200 on a replay; claim of a blocked task is 409 blocked', async () => {
    const plan = {
      agent: 'planner',
      board: 'http-deps',
      idempotency_key: 'p-1',
      tasks: [
        { ref: 'a', title: 'first' },
        { ref: 'b', title: 'second', blocked_by: ['a'] },
      ],
    };
    const first = await h.req('POST', '/v1/plans', plan);
    assert.equal(first.status, 201);
    const { a, b } = first.json.tasks;
    assert.deepEqual(b.blocked, [{ id: a.id, state: 'queued' }]);
    assert.equal(b.ready, false);
    const again = await h.req('POST', '/v1/plans', plan);
    assert.equal(again.status, 200);
    assert.equal(again.json.tasks.b.id, b.id);
    const blocked = await h.req('POST', `/v1/tasks/${b.id}/claim`, { agent: 'w' });
    assert.equal(blocked.status, 409);
    assert.equal(blocked.json.error.code, 'blocked');
    assert.deepEqual(blocked.json.error.blocked, [{ id: a.id, state: 'queued' }]);
  });

  test('POST /v1/tasks/:id/deps answers {task}; a cycle is 409 dependency_cycle naming it; an unknown id is 404 naming it', async () => {
    const x = (await h.req('POST', '/v1/tasks', { title: 'x', agent: 'a', board: 'http-deps2' })).json.task;
    const y = (await h.req('POST', '/v1/tasks', { title: 'y', agent: 'a', board: 'http-deps2', blocked_by: [x.id] }))
      .json.task;
    const cycle = await h.req('POST', `/v1/tasks/${x.id}/deps`, { agent: 'a', add: [y.id] });
    assert.equal(cycle.status, 409);
    assert.equal(cycle.json.error.code, 'dependency_cycle');
    assert.deepEqual(cycle.json.error.cycle, [x.id, y.id, x.id]);
    const missing = await h.req('POST', `/v1/tasks/${y.id}/deps`, { agent: 'a', add: ['nosuch12'] });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.task_id, 'nosuch12');
    const removed = await h.req('POST', `/v1/tasks/${y.id}/deps`, { agent: 'a', remove: [x.id] });
    assert.equal(removed.status, 200);
    assert.equal(removed.json.task.ready, true);
    const listed = await h.req('GET', '/v1/tasks?board=http-deps2&ready=true');
    assert.equal(listed.json.tasks.length, 2);
  });

  test('the OpenAPI document describes both routes and the new task fields', async () => {
    const doc = (await h.req('GET', '/v1/openapi.json')).json;
    assert.ok(doc.paths['/v1/plans']?.post);
    assert.ok(doc.paths['/v1/tasks/{id}/deps']?.post);
    const text = JSON.stringify(doc);
    for (const field of ['blocked_by', 'ready', 'parent', 'children', 'dependency_cycle']) {
      assert.ok(text.includes(field), field);
    }
  });
});
