/**
 * Model-based property: random command sequences run against the pure model
 * (board-model.ts) and a real store through the operations. Every outcome must
 * agree (success or error code, and the key fields), and after every step the
 * invariants hold: at most one live claim per task, terminal states never
 * change, a rejected call (a stale claim_id above all) changes no row, a
 * replayed submit changes nothing, every change appended its event, and no
 * task is ever claimed while one of its blockers is not completed (SPEC §11).
 * Exported so each store runs it: `checkModelBased(makeStore)`.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ResultStatus, Task } from '../../src/core/model.js';
import { operations as op } from '../../src/core/operations.js';
import { type Harness, harness, type MakeStore } from '../support/ctx.js';
import { BoardModel, type Expected, type ModelTask } from './board-model.js';

const AGENTS = ['a1', 'a2', 'a3'] as const;
const S = 1000;

/** Which claim_id a fenced call presents: the task's last claim, an older one, or one never issued. */
type Ref = { last: true } | { old: number } | { forged: true };

export type Command =
  | { kind: 'post'; agent: number; for: number | null; priority: number; ttl_s: number | null; after: number[] }
  | { kind: 'deps'; task: number; agent: number; add: number[]; remove: number[] }
  | { kind: 'claim'; task: number; agent: number; lease_s: number }
  | { kind: 'claimNext'; agent: number; lease_s: number }
  | { kind: 'heartbeat'; task: number; ref: Ref; lease_s: number | null }
  | { kind: 'release'; task: number; ref: Ref; to: number | null }
  | { kind: 'submit'; task: number; ref: Ref; status: ResultStatus; result: number }
  | { kind: 'cancel'; task: number; agent: number }
  | { kind: 'show'; task: number; agent: number }
  | { kind: 'inbox'; agent: number }
  | { kind: 'advance'; s: number };

const agent = fc.nat(AGENTS.length - 1);
const task = fc.nat(9);
// Round values often, so a lease or ttl ends exactly at the instant the clock reaches.
const lease_s = fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(1, 10, 60));
const ref: fc.Arbitrary<Ref> = fc.oneof(
  { arbitrary: fc.constant({ last: true as const }), weight: 6 },
  { arbitrary: fc.nat(5).map((old) => ({ old })), weight: 2 },
  { arbitrary: fc.constant({ forged: true as const }), weight: 1 },
);
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  w(
    3,
    fc.record({
      kind: fc.constant('post' as const),
      agent,
      for: fc.oneof(w(3, fc.constant(null)), w(1, agent)),
      priority: fc.integer({ min: -1, max: 2 }),
      ttl_s: fc.oneof(w(4, fc.constant(null)), w(1, fc.integer({ min: 1, max: 600 })), w(1, fc.constantFrom(10, 60))),
      // SPEC §11: blockers among the tasks posted so far (indices, like `task`).
      after: fc.oneof(w(2, fc.constant<number[]>([])), w(2, fc.array(task, { minLength: 1, maxLength: 3 }))),
    }),
  ),
  w(
    2,
    fc.record({
      kind: fc.constant('deps' as const),
      task,
      agent,
      add: fc.array(task, { maxLength: 2 }),
      remove: fc.array(task, { maxLength: 2 }),
    }),
  ),
  w(4, fc.record({ kind: fc.constant('claim' as const), task, agent, lease_s })),
  w(3, fc.record({ kind: fc.constant('claimNext' as const), agent, lease_s })),
  w(3, fc.record({ kind: fc.constant('heartbeat' as const), task, ref, lease_s: fc.option(lease_s, { nil: null }) })),
  w(2, fc.record({ kind: fc.constant('release' as const), task, ref, to: fc.option(agent, { nil: null }) })),
  w(
    4,
    fc.record({
      kind: fc.constant('submit' as const),
      task,
      ref,
      status: fc.constantFrom<ResultStatus>('completed', 'failed'),
      result: fc.nat(1),
    }),
  ),
  w(1, fc.record({ kind: fc.constant('cancel' as const), task, agent })),
  w(1, fc.record({ kind: fc.constant('show' as const), task, agent })),
  w(1, fc.record({ kind: fc.constant('inbox' as const), agent })),
  w(
    3,
    fc.record({
      kind: fc.constant('advance' as const),
      s: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constantFrom(1, 10, 60)),
    }),
  ),
);

type Got = { ok: true; value: unknown } | { ok: false; code: string; details: Record<string, unknown> };

async function attempt(p: Promise<unknown>): Promise<Got> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    const err = e as { code?: unknown; details?: Record<string, unknown> };
    if (typeof err.code !== 'string' || err.code === 'internal') throw e;
    return { ok: false, code: err.code, details: err.details ?? {} };
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The outcome agrees with the model: same success or error code; a `claimed` loss names the same holder. */
function agree(got: Got, want: Expected, at: string): void {
  assert.equal(got.ok ? 'ok' : got.code, want.ok ? 'ok' : want.code, at);
  if (!got.ok && !want.ok && want.code === 'claimed') {
    assert.equal(got.details.holder, want.holder, at);
    assert.equal(got.details.lease_until, iso(want.lease_until ?? null), at);
  }
}

/** The fields of a stored task the model predicts. */
const view = (t: Task) => ({
  state: t.state,
  claimed_by: t.claimed_by,
  attempts: t.attempts,
  for: t.for,
  handed_by: t.handed_by ?? null,
  lease_until: t.lease_until,
  result_status: t.result_status,
  result: t.result,
  priority: t.priority,
  created_by: t.created_by,
  expires_at: t.expires_at,
  blocked_by: t.blocked_by,
  ready: t.ready,
  blocked: t.blocked.map((b) => `${b.id}:${b.state}`),
});
const modelView = (model: BoardModel, m: ModelTask) => ({
  state: m.state,
  claimed_by: m.claimed_by,
  attempts: m.attempts,
  for: m.for,
  handed_by: m.handed_by ?? null,
  lease_until: iso(m.lease_until),
  result_status: m.result?.status ?? null,
  result: m.result ? m.result.value : null,
  priority: m.priority,
  created_by: m.created_by,
  expires_at: iso(m.expires_at),
  blocked_by: m.blocked_by,
  ready: model.ready(m),
  blocked: m.state === 'queued' ? model.open(m).map((b) => `${b}:${model.tasks.get(b)?.state}`) : [],
});

class Run {
  readonly model: BoardModel;
  readonly ids: string[] = [];
  private rows = new Map<string, Task>();
  private seq = 0;
  private seenEvents = 0;
  private probes = 0;

  constructor(readonly h: Harness) {
    this.model = new BoardModel(h.clock.now());
  }

  private pick(i: number): ModelTask | undefined {
    const id = this.ids[i % Math.max(1, this.ids.length)];
    return id === undefined ? undefined : this.model.tasks.get(id);
  }

  private claimId(t: ModelTask, r: Ref): string {
    if ('last' in r) return t.claims.at(-1) ?? 'c_never-issued';
    if ('old' in r) return t.claims[r.old % Math.max(1, t.claims.length)] ?? 'c_never-issued';
    return 'c_forged-token';
  }

  /** Runs one command on both sides; returns whether it may have changed a task row. */
  async step(cmd: Command, at: string): Promise<{ touched: string[]; mayChange: boolean }> {
    const { h, model } = this;
    const name = (i: number) => AGENTS[i] ?? 'a1';
    switch (cmd.kind) {
      case 'advance': {
        h.clock.advance(cmd.s * S);
        model.advance(cmd.s * S);
        return { touched: this.ids, mayChange: true };
      }
      case 'post': {
        const after = [...new Set(cmd.after.flatMap((i) => this.pick(i)?.id ?? []))];
        const got = await attempt(
          h.call(op.createTask, {
            title: 'model task',
            agent: name(cmd.agent),
            priority: cmd.priority,
            ...(cmd.for === null ? {} : { for: name(cmd.for) }),
            ...(cmd.ttl_s === null ? {} : { ttl_s: cmd.ttl_s }),
            ...(after.length ? { blocked_by: after } : {}),
          }),
        );
        const allowed = model.checkPost(name(cmd.agent), after);
        agree(got, allowed, at);
        if (!got.ok) return { touched: [], mayChange: false };
        const { task: t, created } = got.value as { task: Task; created: boolean };
        assert.equal(created, true, at);
        model.post(t.id, {
          agent: name(cmd.agent),
          for: cmd.for === null ? null : name(cmd.for),
          priority: cmd.priority,
          ttl_ms: (cmd.ttl_s ?? 86_400) * S,
          blocked_by: after,
        });
        this.ids.push(t.id);
        return { touched: [t.id], mayChange: true };
      }
      case 'deps': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const ids = (is: number[]) => [...new Set(is.flatMap((i) => this.pick(i)?.id ?? []))];
        const add = ids(cmd.add);
        const remove = ids(cmd.remove);
        const before = [...t.blocked_by];
        const got = await attempt(h.call(op.setDeps, { task_id: t.id, agent: name(cmd.agent), add, remove }));
        const want = model.setDeps(t.id, name(cmd.agent), add, remove);
        agree(got, want, at);
        if (got.ok) assert.deepEqual(view((got.value as { task: Task }).task), modelView(model, t), at);
        return { touched: [t.id], mayChange: want.ok && before.join() !== t.blocked_by.join() };
      }
      case 'claim': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const got = await attempt(
          h.call(op.claimTask, { task_id: t.id, agent: name(cmd.agent), lease_s: cmd.lease_s }),
        );
        const fresh = got.ok ? (got.value as { claim_id: string }).claim_id : 'c_unused';
        const want = model.claim(t.id, name(cmd.agent), cmd.lease_s * S, fresh);
        agree(got, want, at);
        if (got.ok && want.ok) {
          const g = got.value as { claim_id: string; reclaimed: boolean; fence: number; lease_until: string };
          assert.equal(g.reclaimed, want.reclaimed, at);
          if (!want.reclaimed) assert.equal(t.claims.indexOf(g.claim_id), t.claims.length - 1, `${at}: a new claim_id`);
          assert.equal(g.claim_id, want.claim_id, at);
          assert.equal(g.fence, t.attempts, at);
          assert.equal(g.lease_until, iso(t.lease_until), at);
          return { touched: [t.id], mayChange: !want.reclaimed };
        }
        return { touched: [t.id], mayChange: false };
      }
      case 'claimNext': {
        const candidates = model.nextCandidates(name(cmd.agent));
        const got = await attempt(h.call(op.claimNext, { agent: name(cmd.agent), lease_s: cmd.lease_s }));
        assert.ok(got.ok, at);
        const g = got.value as { task: Task; claim_id: string; fence: number; reclaimed: boolean } | null;
        if (candidates.length === 0) {
          assert.equal(g, null, `${at}: nothing claimable`);
          return { touched: [], mayChange: false };
        }
        assert.ok(g, `${at}: expected one of ${candidates.join(',')}`);
        assert.ok(candidates.includes(g.task.id), `${at}: ${g.task.id} is not next (${candidates.join(',')})`);
        assert.equal(g.reclaimed, false, at);
        model.claimNext(g.task.id, name(cmd.agent), cmd.lease_s * S, g.claim_id);
        assert.equal(g.fence, model.tasks.get(g.task.id)?.attempts, at);
        return { touched: [g.task.id], mayChange: true };
      }
      case 'heartbeat': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const claim_id = this.claimId(t, cmd.ref);
        const input = { task_id: t.id, claim_id, ...(cmd.lease_s === null ? {} : { lease_s: cmd.lease_s }) };
        const got = await attempt(h.call(op.heartbeat, input));
        const want = model.heartbeat(t.id, claim_id, cmd.lease_s === null ? null : cmd.lease_s * S);
        agree(got, want, at);
        if (got.ok && want.ok)
          assert.equal((got.value as { lease_until: string }).lease_until, iso(want.lease_until), at);
        return { touched: [t.id], mayChange: want.ok };
      }
      case 'release': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const claim_id = this.claimId(t, cmd.ref);
        const to = cmd.to === null ? null : name(cmd.to);
        const got = await attempt(h.call(op.releaseTask, { task_id: t.id, claim_id, ...(to ? { to } : {}) }));
        const want = model.release(t.id, claim_id, to);
        agree(got, want, at);
        if (got.ok) assert.deepEqual(view((got.value as { task: Task }).task), modelView(model, t), at);
        return { touched: [t.id], mayChange: want.ok };
      }
      case 'submit': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const claim_id = this.claimId(t, cmd.ref);
        const result = { v: cmd.result };
        const got = await attempt(h.call(op.submitResult, { task_id: t.id, claim_id, status: cmd.status, result }));
        const want = model.submit(t.id, claim_id, cmd.status, result);
        agree(got, want, at);
        if (got.ok && want.ok) {
          const out = got.value as { task: Task; replayed: boolean };
          assert.equal(out.replayed, want.replayed, at);
          assert.deepEqual(view(out.task), modelView(model, t), at);
          // Replay is idempotent: it answers exactly the stored task (and, like list, where its work stands).
          const { integration, ...task } = out.task;
          assert.deepEqual(integration, { state: 'none' }, `${at}: no commits, not in the integration queue`);
          if (want.replayed) assert.deepEqual(task, this.rows.get(t.id), `${at}: replay answers the stored task`);
        }
        return { touched: [t.id], mayChange: want.ok && !want.replayed };
      }
      case 'cancel': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const before = t.state;
        const got = await attempt(h.call(op.cancelTask, { task_id: t.id, agent: name(cmd.agent) }));
        const want = model.cancel(t.id, name(cmd.agent));
        agree(got, want, at);
        return { touched: [t.id], mayChange: want.ok && before !== 'cancelled' };
      }
      case 'show': {
        const t = this.pick(cmd.task);
        if (!t) return { touched: [], mayChange: false };
        const got = await attempt(h.call(op.showTask, { task_id: t.id, agent: name(cmd.agent) }));
        agree(got, model.visible(t, name(cmd.agent)) ? { ok: true } : { ok: false, code: 'not_found' }, at);
        return { touched: [], mayChange: false };
      }
      case 'inbox': {
        const got = await h.call(op.inbox, { agent: name(cmd.agent) });
        const want = model.inbox(name(cmd.agent));
        const ids = (ts: Task[]) => ts.map((t) => t.id).sort();
        const mineFirst = got.tasks.findIndex((t) => t.for === null);
        const split = mineFirst === -1 ? got.tasks.length : mineFirst;
        assert.deepEqual(
          {
            claims: ids(got.claims.map((c) => c.task)),
            mine: ids(got.tasks.slice(0, split)),
            open: ids(got.tasks.slice(split)),
          },
          want,
          at,
        );
        return { touched: [], mayChange: false };
      }
    }
  }

  /** After each step: the store agrees with the model, and the invariants hold. */
  async check(touched: string[], mayChange: boolean, at: string): Promise<void> {
    const { h, model } = this;
    const before = this.rows;
    // `integration` is filled in by list, show and submit (SPEC §15), not by the writes this model compares with.
    const listed = (await h.call(op.listTasks, { limit: 500 })).tasks.map(({ integration: _i, ...t }) => t as Task);
    const after = new Map(listed.map((t) => [t.id, t]));
    assert.equal(after.size, model.tasks.size, at);
    for (const [id, m] of model.tasks) {
      const row = after.get(id);
      assert.ok(row, `${at}: ${id} missing`);
      assert.deepEqual(view(row), modelView(model, m), `${at}: task ${id}`);
      // Terminal states never change — not the state, not a byte of the row.
      const prev = before.get(id);
      if (prev && ['completed', 'failed', 'cancelled', 'expired'].includes(prev.state)) {
        assert.deepEqual(row, prev, `${at}: terminal ${id} changed`);
      }
      // A rejected call, a stale claim_id above all, changes no row.
      if (!mayChange && prev) assert.deepEqual(row, prev, `${at}: ${id} changed by a call that changed nothing`);
    }
    this.rows = after;

    // SPEC §11: no task is ever claimed while a blocker is not completed (on the store's own rows).
    for (const row of after.values()) {
      if (row.state !== 'claimed') continue;
      for (const b of row.blocked_by) {
        assert.equal(
          after.get(b)?.state,
          'completed',
          `${at}: ${row.id} is claimed while its blocker ${b} is not completed`,
        );
      }
    }

    // Every change appended its event, in the same step.
    const events = (await h.call(op.listEvents, { since: this.seq, limit: 1000 })).events;
    for (const e of events) {
      assert.ok(e.seq > this.seq, `${at}: seq grows`);
      this.seq = e.seq;
    }
    const want = model.events.slice(this.seenEvents);
    this.seenEvents = model.events.length;
    assert.deepEqual(events.map((e) => `${e.type}:${e.task_id}`).sort(), [...want].sort(), `${at}: events`);

    // At most one live claim per task: of every claim_id ever granted, only the model's live one is accepted.
    for (const id of touched) {
      const t = model.tasks.get(id);
      if (!t) continue;
      const accepted = [];
      for (const claim_id of new Set(t.claims)) {
        const artifact_id = `probe-${++this.probes}`;
        const got = await attempt(
          h.call(op.putArtifact, { task_id: id, claim_id, artifact_id, bytes: new Uint8Array([1]) }),
        );
        if (got.ok) accepted.push(claim_id);
      }
      const live = model.liveClaim(t);
      assert.deepEqual(accepted, live ? [live] : [], `${at}: live claims of ${id}`);
    }
  }
}

export const modelBasedProperty = (makeStore: MakeStore) =>
  fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 60, size: 'max' }), async (commands) => {
    const h = await harness(makeStore);
    try {
      const run = new Run(h);
      for (const [i, cmd] of commands.entries()) {
        const at = `step ${i} ${JSON.stringify(cmd)}`;
        const { touched, mayChange } = await run.step(cmd, at);
        await run.check(touched, mayChange, at);
      }
    } finally {
      await h.store.close();
    }
  });

/** Runs the property; COORD_PBT_RUNS and COORD_PBT_SEED override the defaults. */
export async function checkModelBased(makeStore: MakeStore, defaultRuns = 100): Promise<void> {
  const numRuns = Number(process.env.COORD_PBT_RUNS ?? defaultRuns);
  const seed = process.env.COORD_PBT_SEED === undefined ? undefined : Number(process.env.COORD_PBT_SEED);
  await fc.assert(modelBasedProperty(makeStore), {
    numRuns,
    includeErrorInReport: true,
    ...(seed === undefined ? {} : { seed }),
  });
}
