import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mcpHarness } from './harness.js';

describe('MCP tools for plans (SPEC §11)', () => {
  test('post_plan posts the steps in one call; claim_task without an id takes only ready steps, in order', async () => {
    const h = await mcpHarness();
    const planner = await h.agent({ agent: 'planner' });
    const worker = await h.agent({ agent: 'worker' });
    const posted = await planner.call('post_plan', {
      tasks: [
        { ref: 'schema', title: 'add the index' },
        { ref: 'api', title: 'expose search', blocked_by: ['schema'], priority: -5 },
      ],
    });
    assert.equal(posted.isError, false, posted.text);
    const { schema, api } = posted.data.tasks;
    assert.match(posted.text, /posted a plan of 2 tasks: 1 ready now, 1 waiting for others/);
    assert.match(posted.text, new RegExp(`api = #${api.id} after #${schema.id}`));
    const inbox = await worker.call('inbox');
    assert.match(inbox.text, /1 to claim · 1 blocked/);
    const blocked = await worker.call('claim_task', { task_id: api.id });
    assert.equal(blocked.isError, true);
    assert.match(blocked.text, /^blocked/);
    const first = await worker.call('claim_task', {});
    assert.equal(first.data.task.id, schema.id);
    await worker.call('submit_result', { task_id: schema.id, status: 'completed' });
    const second = await worker.call('claim_task', {});
    assert.equal(second.data.task.id, api.id);
  });

  test('set_deps adds and removes blockers and says what the task waits for', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'a' });
    const x = (await a.call('post_task', { title: 'x' })).data.task;
    const y = (await a.call('post_task', { title: 'y', blocked_by: [x.id] })).data.task;
    assert.equal(y.ready, false);
    const cycle = await a.call('set_deps', { task_id: x.id, add: [y.id] });
    assert.equal(cycle.isError, true);
    assert.match(cycle.text, /^dependency_cycle/);
    const freed = await a.call('set_deps', { task_id: y.id, remove: [x.id] });
    assert.match(freed.text, new RegExp(`#${y.id} waits for nothing — it can be claimed now`));
  });
});
