/**
 * PostgreSQL's one-round-trip claim, claim-next and submit write their event inside the statement, so their
 * payloads are SQL (store/postgres/event-sql.ts, typed field by field by the catalogue). These tests hold that
 * SQL to the TypeScript builders every other path uses (store/shared/task-events.ts): the functions the
 * migrations installed build the payloads with exactly event-sql.ts's expressions, and what the statements
 * store — and publish — is what the builders make of the row.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CoordEvent } from '../../src/core/model.js';
import { operations as op } from '../../src/core/operations.js';
import { claimedDataSql, finishedDataSql } from '../../src/store/postgres/event-sql.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { row } from '../../src/store/postgres/sql.js';
import type { TaskRow } from '../../src/store/shared/rows.js';
import { taskClaimed, taskFinished } from '../../src/store/shared/task-events.js';
import { harness } from '../support/ctx.js';
import { type PgServer, startPostgres } from '../support/postgres.js';
import { makePostgresStore } from './make-store.js';

let server: PgServer | undefined;
let url = '';
before(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
});
after(() => server?.stop());

const words = (sql: string) => sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')');

test("the claim-next and submit functions build their events' data with event-sql.ts's expressions", async () => {
  const h = await harness(makePostgresStore(() => url));
  const { pool } = h.store as PostgresStore;
  const source = async (fn: string) =>
    words((await pool.query('SELECT prosrc FROM pg_proc WHERE oid = to_regproc($1)', [fn])).rows[0].prosrc);
  assert.ok((await source('coord_claim_next')).includes(words(claimedDataSql('task'))), 'coord_claim_next');
  assert.ok((await source('coord_submit')).includes(words(finishedDataSql('task'))), 'coord_submit');
  await h.store.close();
});

test('the payloads the one-round-trip claim by id, claim-next and submit store and publish are the TypeScript builders of the row', async () => {
  const h = await harness(makePostgresStore(() => url));
  const store = h.store as PostgresStore;
  const published: CoordEvent[] = [];
  const stop = store.subscribe((events) => published.push(...events));
  const taskRow = async (id: string) => (await row<TaskRow>(store.pool, 'SELECT * FROM tasks WHERE id = @id', { id }))!;
  const post = async (title: string) => (await h.call(op.createTask, { title, agent: 'ann' })).task.id;
  const byId = await post('by id');
  const grant = await h.call(op.claimTask, { task_id: byId, agent: 'bob', lease_s: 60 });
  const claimed = await taskRow(byId);
  await h.call(op.submitResult, { task_id: byId, claim_id: grant.claim_id, status: 'completed' });
  const submitted = await taskRow(byId);
  const next = await post('next');
  const nextGrant = await h.call(op.claimNext, { agent: 'cat', lease_s: 30 });
  assert.equal(nextGrant?.task.id, next);
  const nextClaimed = await taskRow(next);
  await h.call(op.submitResult, { task_id: next, claim_id: nextGrant!.claim_id, status: 'failed' });
  const failed = await taskRow(next);

  const stored = (await h.call(op.listEvents, {})).events.filter((e) => e.type !== 'task.created');
  const expected = [
    taskClaimed(claimed),
    taskFinished(submitted, 'completed'),
    taskClaimed(nextClaimed),
    taskFinished(failed, 'failed'),
  ].map((e) => [e.type, e.task_id, e.agent, e.data]);
  assert.deepEqual(
    stored.map((e) => [e.type, e.task_id, e.agent, e.data]),
    expected,
  );
  const live = published.filter((e) => e.type !== 'task.created');
  assert.deepEqual(live, stored, 'what was published is what was stored');
  stop();
  await store.close();
});
