/**
 * The event catalogue (core/events.ts) describes the payloads the stores really write: a walk through every
 * kind of change appends at least one event of each type, and each one's data passes its type's schema and
 * has a text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENTS, eventText, payloadSchema } from '../../src/core/events.js';
import { EVENT_TYPES } from '../../src/core/model.js';
import { operations as op } from '../../src/core/operations.js';
import { harness, makeSqliteStore } from '../support/ctx.js';

test('every event type has a catalogue entry, and each event the store writes matches its payload schema', async () => {
  assert.deepEqual(Object.keys(EVENTS).sort(), [...EVENT_TYPES].sort());
  const h = await harness(makeSqliteStore);
  const board = 'catalogue';
  const post = async (title: string, extra: object = {}) =>
    ((await h.call(op.createTask, { title, agent: 'ann', board, ...extra })) as { task: { id: string } }).task.id;
  const claim = async (id: string, agent: string) =>
    ((await h.call(op.claimTask, { task_id: id, agent, lease_s: 1 })) as { claim_id: string }).claim_id;
  const a = await post('first');
  const b = await post('after first', { blocked_by: [a] });
  const c = await post('to cancel');
  const handed = await claim(a, 'bob');
  await h.call(op.releaseTask, { task_id: a, claim_id: handed, to: 'cat', note: 'over to you' });
  const done = await claim(a, 'cat');
  await h.call(op.submitResult, { task_id: a, claim_id: done, status: 'completed' }); // b: task.ready
  const failing = await claim(b, 'bob');
  await h.call(op.submitResult, { task_id: b, claim_id: failing, status: 'failed' });
  await claim(await post('lapses'), 'bob');
  await h.call(op.cancelTask, { task_id: c, agent: 'ann', reason: 'not needed' });
  await post('expires', { ttl_s: 1 });
  const lock = (await h.call(op.lockFiles, { agent: 'ann', board, resources: ['src/a.ts'] })) as { lock_id: string };
  await h.call(op.unlockFiles, { lock_id: lock.lock_id });
  await h.call(op.addNote, { task_id: c, agent: 'ann', text: 'why it was cancelled' });
  const sent = (await h.call(op.sendMessage, { agent: 'ann', board, to: 'bob', text: 'hi', ack_required: true })) as {
    message: { id: string };
  };
  await h.call(op.ackMessage, { message_id: sent.message.id, agent: 'bob' });
  // SPEC §14: a lock taken from a work tree becomes, when released with its path pending, that work tree's hold (lock.held).
  await h.store.acquireLocks({
    lock_id: 'l_held',
    board,
    agent: 'ann',
    resources: ['src/held.ts'],
    lease_ms: 60_000,
    session_id: null,
    worktree: '/repo/wt-a',
  });
  await h.store.releaseLock('l_held');
  // git (here: the test) says the path is still pending there, so the ended lock becomes the hold.
  await h.store.trimHolds([{ lock_id: 'l_held', keep: ['src/held.ts'], reason: 'merged' }]);
  // SPEC §15: an integration result that is not a merge (task.integration), then a merge (task.integrated).
  const worked = await post('integrated');
  const grant = await claim(worked, 'bob');
  await h.call(op.submitResult, { task_id: worked, claim_id: grant, status: 'completed' });
  const head = 'a'.repeat(40);
  await h.call(op.queueIntegration, { task_id: worked, worktree: '/repo/wt-b', branch: 'feat/b', head });
  // A person approves it before its turn (task.approved, naming who).
  await h.call(op.approveIntegration, { task_id: worked, agent: 'ann' });
  const slot = { board, holder: 'integrator', slot_id: 'slot-aaaaaaaaaaaaaaaa' };
  await h.call(op.takeIntegrationSlot, slot);
  const result = { board, slot_id: slot.slot_id, task_id: worked, head, target: 'main' };
  await h.call(op.recordIntegration, {
    ...result,
    state: 'blocked',
    reason: 'main is dirty',
    note: null,
    followup: null,
  });
  // SPEC §15: the integrator begins checking a window (integration.window), then the merge (task.integrated).
  await h.call(op.recordIntegrationWindow, { board, slot_id: slot.slot_id, target: 'main', tasks: [worked], size: 2 });
  await h.call(op.recordIntegration, { ...result, state: 'merged', reason: null, commit: head, how: 'fast-forward' });
  // SPEC §16: a connector granted through consent, then revoked.
  const now = h.clock.now();
  const redirect = 'https://claude.ai/api/mcp/auth_callback';
  await h.store.registerClient(
    { client_id: 'cl1', secret_hash: null, name: 'Claude', redirect_uris: [redirect], metadata: {} },
    100,
  );
  const code = {
    hash: 'c1',
    client_id: 'cl1',
    redirect_uri: redirect,
    challenge: 'ch',
    resource: 'https://coord.example/mcp',
    board,
    agent: 'claude#k3x9',
    expires_at: now + 60_000,
  };
  await h.store.approve({ connect_hash: null, code });
  const tokens = {
    access_hash: 'a1',
    access_expires_at: now + 3_600_000,
    refresh_hash: 'r1',
    refresh_expires_at: now + 7_200_000,
  };
  await h.store.redeemCode({ hash: 'c1', client_id: 'cl1', grant_id: 'g1', tokens, check: () => null });
  await h.store.revokeGrant({ id: 'g1', delete_client: false });
  // SPEC §18: a supervisor reports an agent process: launched, working, paused at a usage limit, exited.
  const at = new Date(now).toISOString();
  const run = {
    agent: 'claude#a1b2',
    board,
    client: 'claude',
    pid: 7,
    task_id: c,
    worktree: '/repo.worktrees/c',
    branch: 'coord/c-x',
    state: 'starting',
    since: at,
    started_at: at,
    usage: null,
    paused_until: null,
    attempt: 1,
    supervisor: 'coord run',
    exit_code: null,
    submitted: false,
  };
  await h.call(op.reportRun, run);
  await h.call(op.reportRun, { ...run, state: 'paused', paused_until: at });
  await h.call(op.reportRun, { ...run, state: 'exited', exit_code: 1 });
  h.clock.advance(3_600_000); // the lease lapses, the ttl passes
  await h.call(op.listTasks, { board });

  const { events } = (await h.call(op.listEvents, { board, limit: 1000 })) as {
    events: { type: (typeof EVENT_TYPES)[number]; data: unknown }[];
  };
  assert.deepEqual([...new Set(events.map((e) => e.type))].sort(), [...EVENT_TYPES].sort(), 'one of each type');
  for (const e of events) {
    const parsed = payloadSchema(e.type).safeParse(e.data);
    assert.ok(parsed.success, `${e.type} ${JSON.stringify(e.data)}: ${parsed.error?.message}`);
    assert.equal(typeof eventText(e as never), 'string');
  }
  const lapsed = events.find(
    (e) => e.type === 'task.requeued' && (e.data as { reason: string }).reason === 'lease_lapsed',
  );
  assert.match(eventText(lapsed as never), /^lease lapsed/);
});
