import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  claimableBy,
  explainClaimLoss,
  explainFenceLoss,
  explainSubmitLoss,
  leaseLive,
  type TaskFacts,
  visibleTo,
} from '../../src/core/board/rules.js';

const NOW = 1_000_000;
const facts = (over: Partial<TaskFacts> = {}): TaskFacts => ({
  state: 'queued',
  for: null,
  created_by: 'alice',
  claimed_by: null,
  claim_id: null,
  lease_until_ms: null,
  expires_at_ms: NOW + 60_000,
  attempts: 0,
  claim_end: null,
  blockers_open: 0,
  ...over,
});
const held = (over: Partial<TaskFacts> = {}) =>
  facts({ state: 'claimed', claimed_by: 'bob', claim_id: 'c1', lease_until_ms: NOW + 1, attempts: 1, ...over });

describe('visibility (rule 4)', () => {
  test('a public task is visible to every agent and to the operator', () => {
    assert.equal(visibleTo(facts(), 'anyone'), true);
    assert.equal(visibleTo(facts(), undefined), true);
  });

  test('a private task is visible to its target, its author and the operator only', () => {
    const t = facts({ for: 'bob' });
    assert.equal(visibleTo(t, 'bob'), true);
    assert.equal(visibleTo(t, 'alice'), true);
    assert.equal(visibleTo(t, undefined), true);
    assert.equal(visibleTo(t, 'mallory'), false);
  });

  test('only the target may claim a private task; anyone may claim a public one', () => {
    assert.equal(claimableBy(facts({ for: 'bob' }), 'bob'), true);
    assert.equal(claimableBy(facts({ for: 'bob' }), 'alice'), false);
    assert.equal(claimableBy(facts(), 'alice'), true);
  });

  test('a lease is live strictly before lease_until and dead from that instant on', () => {
    assert.equal(leaseLive({ lease_until_ms: NOW + 1 }, NOW), true);
    assert.equal(leaseLive({ lease_until_ms: NOW }, NOW), false);
    assert.equal(leaseLive({ lease_until_ms: null }, NOW), false);
  });
});

describe('why a claim lost (rules 2–4)', () => {
  test('a missing task and a private task of someone else are both not_found', () => {
    assert.deepEqual(explainClaimLoss(null, 'bob', NOW), { ok: false, reason: 'not_found' });
    assert.deepEqual(explainClaimLoss(facts({ for: 'carol' }), 'bob', NOW), { ok: false, reason: 'not_found' });
    assert.deepEqual(explainClaimLoss(held({ for: 'bob' }), 'mallory', NOW), { ok: false, reason: 'not_found' });
  });

  test('the live holder claiming again is a reclaim, not a loss', () => {
    assert.deepEqual(explainClaimLoss(held(), 'bob', NOW), { ok: true, reclaim: true });
  });

  test('anyone else learns the holder and its lease_until', () => {
    assert.deepEqual(explainClaimLoss(held(), 'carol', NOW), {
      ok: false,
      reason: 'claimed',
      holder: 'bob',
      lease_until: new Date(NOW + 1).toISOString(),
    });
  });

  test('a holder whose lease has passed gets no reclaim', () => {
    assert.equal(explainClaimLoss(held({ lease_until_ms: NOW }), 'bob', NOW).ok, false);
  });

  test('cancelled and expired name themselves; completed and failed are not_claimable', () => {
    assert.deepEqual(explainClaimLoss(facts({ state: 'cancelled' }), 'bob', NOW), { ok: false, reason: 'cancelled' });
    assert.deepEqual(explainClaimLoss(facts({ state: 'expired' }), 'bob', NOW), { ok: false, reason: 'expired' });
    for (const state of ['completed', 'failed'] as const) {
      assert.deepEqual(explainClaimLoss(facts({ state }), 'bob', NOW), { ok: false, reason: 'not_claimable', state });
    }
  });

  test('a queued task past its ttl is expired even before the sweep moved it', () => {
    assert.deepEqual(explainClaimLoss(facts({ expires_at_ms: NOW }), 'bob', NOW), { ok: false, reason: 'expired' });
  });

  test('the author of a task handed to another agent is told whom it is reserved for', () => {
    assert.deepEqual(explainClaimLoss(facts({ for: 'bob' }), 'alice', NOW), {
      ok: false,
      reason: 'not_claimable',
      state: 'queued',
      for: 'bob',
    });
  });
});

describe('why a fenced call was refused (rule 5)', () => {
  test('a missing task is not_found', () => {
    assert.deepEqual(explainFenceLoss(null, 'c1', NOW), { ok: false, reason: 'not_found' });
  });

  test('a cancelled or expired task names its state, whatever claim_id is presented', () => {
    for (const state of ['cancelled', 'expired'] as const) {
      assert.deepEqual(explainFenceLoss(held({ state }), 'c1', NOW), { ok: false, reason: state });
      assert.deepEqual(explainFenceLoss(held({ state }), 'other', NOW), { ok: false, reason: state });
    }
  });

  test('another claim_id is stale_claim once the task was ever claimed, else not_claimed', () => {
    assert.deepEqual(explainFenceLoss(held(), 'c0', NOW), { ok: false, reason: 'stale_claim', state: 'claimed' });
    assert.deepEqual(explainFenceLoss(facts(), 'c0', NOW), { ok: false, reason: 'not_claimed', state: 'queued' });
  });

  test('the current claim past its lease is lease_expired, before and after the task was requeued', () => {
    assert.deepEqual(explainFenceLoss(held({ lease_until_ms: NOW }), 'c1', NOW), {
      ok: false,
      reason: 'lease_expired',
      state: 'claimed',
    });
    const requeued = held({ state: 'queued', claimed_by: null, lease_until_ms: null, claim_end: 'lapsed' });
    assert.deepEqual(explainFenceLoss(requeued, 'c1', NOW), { ok: false, reason: 'lease_expired', state: 'queued' });
  });

  test('the claim that submitted is not_claimed any more; a released one is stale_claim', () => {
    const done = held({ state: 'completed', lease_until_ms: null, claim_end: 'submitted' });
    assert.deepEqual(explainFenceLoss(done, 'c1', NOW), { ok: false, reason: 'not_claimed', state: 'completed' });
    const released = held({ state: 'queued', claimed_by: null, lease_until_ms: null, claim_end: 'released' });
    assert.deepEqual(explainFenceLoss(released, 'c1', NOW), { ok: false, reason: 'stale_claim', state: 'queued' });
    const ended = held({ state: 'queued', claimed_by: null, lease_until_ms: null, claim_end: 'session_ended' });
    assert.deepEqual(explainFenceLoss(ended, 'c1', NOW), { ok: false, reason: 'stale_claim', state: 'queued' });
  });
});

describe('submit replay (rule 6)', () => {
  const done = { ...held({ state: 'completed', lease_until_ms: null, claim_end: 'submitted' }), result_hash: 'h1' };

  test('the finishing claim with the same hash replays', () => {
    assert.deepEqual(explainSubmitLoss(done, 'c1', 'h1', NOW), { ok: true, replayed: true });
    assert.deepEqual(explainSubmitLoss({ ...done, state: 'failed' }, 'c1', 'h1', NOW), { ok: true, replayed: true });
  });

  test('the finishing claim with another hash is result_mismatch', () => {
    assert.deepEqual(explainSubmitLoss(done, 'c1', 'h2', NOW), { ok: false, reason: 'result_mismatch' });
  });

  test('any other claim_id is fenced off like any other call', () => {
    assert.deepEqual(explainSubmitLoss(done, 'c0', 'h1', NOW), {
      ok: false,
      reason: 'stale_claim',
      state: 'completed',
    });
    assert.deepEqual(explainSubmitLoss(null, 'c1', 'h1', NOW), { ok: false, reason: 'not_found' });
  });

  test('a cancelled task refuses even its last claim', () => {
    const cancelled = { ...done, state: 'cancelled' as const, claim_end: 'cancelled' as const, result_hash: null };
    assert.deepEqual(explainSubmitLoss(cancelled, 'c1', 'h1', NOW), { ok: false, reason: 'cancelled' });
  });
});
