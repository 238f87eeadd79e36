/**
 * Model-based property for messages (SPEC §12), beside the board's (model-based.ts): random sends,
 * broadcasts, inboxes (with and without `since`), lists, shows, acks and pending reads run against a
 * pure model and a real store. After every step: every receipt agrees with the model (when and how it
 * was first delivered, when it was acknowledged), delivery and ack never go backwards, and no agent is
 * ever shown a message it neither sent nor receives — nor another recipient's receipt.
 * Exported so each store runs it: `checkMessagesModelBased(makeStore)`.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { DeliveryVia, Message } from '../../src/core/model.js';
import { operations as op } from '../../src/core/operations.js';
import { type Harness, harness, type MakeStore } from '../support/ctx.js';

const AGENTS = ['a1', 'a2', 'a3', 'a4'] as const;
const S = 1000;

type Cmd =
  | { kind: 'send'; from: number; to: number | '*'; ack: boolean; text: number; key: number | null }
  | { kind: 'inbox'; agent: number; since: boolean }
  | { kind: 'list'; agent: number; box: 'inbox' | 'sent' }
  | { kind: 'show'; agent: number; msg: number }
  | { kind: 'ack'; agent: number; msg: number }
  | { kind: 'pending'; agent: number; via: DeliveryVia; all: boolean; peek: boolean }
  | { kind: 'advance'; s: number };

const agent = fc.nat(AGENTS.length - 1);
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  w(
    4,
    fc.record({
      kind: fc.constant('send' as const),
      from: agent,
      to: fc.oneof(w(3, agent), w(1, fc.constant('*' as const))),
      ack: fc.boolean(),
      text: fc.nat(2),
      key: fc.option(fc.nat(2), { nil: null }),
    }),
  ),
  w(3, fc.record({ kind: fc.constant('inbox' as const), agent, since: fc.boolean() })),
  w(
    1,
    fc.record({ kind: fc.constant('list' as const), agent, box: fc.constantFrom('inbox' as const, 'sent' as const) }),
  ),
  w(1, fc.record({ kind: fc.constant('show' as const), agent, msg: fc.nat(20) })),
  w(2, fc.record({ kind: fc.constant('ack' as const), agent, msg: fc.nat(20) })),
  w(
    2,
    fc.record({
      kind: fc.constant('pending' as const),
      agent,
      via: fc.constantFrom<DeliveryVia>('prime', 'stop', 'push'),
      all: fc.boolean(),
      peek: fc.boolean(),
    }),
  ),
  w(1, fc.record({ kind: fc.constant('advance' as const), s: fc.integer({ min: 0, max: 120 }) })),
);

interface ModelReceipt {
  delivered_at: number | null;
  via: DeliveryVia | null;
  shown_cursor: number | null;
  acked_at: number | null;
}
interface ModelMessage {
  id: string;
  from: string;
  ack: boolean;
  payload: string;
  receipts: Map<string, ModelReceipt>;
}

class Model {
  readonly messages: ModelMessage[] = [];
  readonly keys = new Map<string, ModelMessage>();
  readonly cursors = new Map<string, number>();
  now: number;
  constructor(now: number) {
    this.now = now;
  }
  /** The recipient's open receipts in delivery order: never shown first, then oldest first. */
  open(agent: string, all: boolean): ModelMessage[] {
    const mine = this.messages.filter((m) => {
      const r = m.receipts.get(agent);
      return r && r.acked_at === null && (all || r.delivered_at === null);
    });
    const fresh = (m: ModelMessage) => (m.receipts.get(agent)?.delivered_at === null ? 0 : 1);
    return mine.sort((a, b) => fresh(a) - fresh(b) || this.messages.indexOf(a) - this.messages.indexOf(b));
  }
  deliver(agent: string, ms: ModelMessage[], via: DeliveryVia, cursor: number | null): void {
    for (const m of ms) {
      const r = m.receipts.get(agent);
      // Showing an acknowledged message records nothing more: its receipt is complete.
      if (!r || r.acked_at !== null) continue;
      if (r.delivered_at === null) {
        r.delivered_at = this.now;
        r.via = via;
      }
      if (cursor !== null && r.shown_cursor === null) r.shown_cursor = cursor;
    }
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function attempt<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: string }> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || code === 'internal') throw e;
    return { ok: false, code };
  }
}

class Run {
  readonly model: Model;
  private last = new Map<string, Message>();
  constructor(readonly h: Harness) {
    this.model = new Model(h.clock.now());
  }

  /** Everything shown to `agent` is its own: sent by it or addressed to it, with no one else's receipt. */
  private mine(agent: string, shown: Message[], at: string): void {
    for (const m of shown) {
      const party = m.from === agent || m.receipts.some((r) => r.agent === agent);
      const model = this.model.messages.find((x) => x.id === m.id);
      assert.ok(model && (model.from === agent || model.receipts.has(agent)), `${at}: ${agent} shown ${m.id}`);
      assert.ok(party, `${at}: ${agent} is a party to ${m.id}`);
      if (m.from !== agent)
        assert.deepEqual(
          m.receipts.map((r) => r.agent),
          [agent],
          `${at}: only its own receipt`,
        );
    }
  }

  async step(cmd: Cmd, at: string): Promise<void> {
    const { h, model } = this;
    const name = (i: number) => AGENTS[i] ?? 'a1';
    const pick = (i: number) => model.messages[i % Math.max(1, model.messages.length)];
    switch (cmd.kind) {
      case 'advance': {
        h.clock.advance(cmd.s * S);
        model.now += cmd.s * S;
        return;
      }
      case 'send': {
        const from = name(cmd.from);
        const to = cmd.to === '*' ? '*' : name(cmd.to);
        const text = `text ${cmd.text}`;
        const input = {
          agent: from,
          to,
          text,
          ack_required: cmd.ack,
          ...(cmd.key === null ? {} : { idempotency_key: `k${cmd.key}` }),
        };
        const got = await attempt(h.call(op.sendMessage, input));
        const payload = JSON.stringify([from, to, text, cmd.ack]);
        const known = cmd.key === null ? undefined : model.keys.get(`k${cmd.key}`);
        if (known) {
          if (known.payload !== payload) {
            assert.deepEqual(got, { ok: false, code: 'idempotency_conflict' }, at);
            return;
          }
          assert.ok(got.ok, at);
          assert.equal(got.value.created, false, at);
          assert.equal(got.value.message.id, known.id, at);
          return;
        }
        assert.ok(got.ok, at);
        assert.equal(got.value.created, true, at);
        // Every agent polled the board first (see the property), so "*" is everyone but the sender.
        const recipients = to === '*' ? AGENTS.filter((a) => a !== from) : [to];
        const m: ModelMessage = { id: got.value.message.id, from, ack: cmd.ack, payload, receipts: new Map() };
        for (const r of recipients)
          m.receipts.set(r, { delivered_at: null, via: null, shown_cursor: null, acked_at: null });
        model.messages.push(m);
        if (cmd.key !== null) model.keys.set(`k${cmd.key}`, m);
        return;
      }
      case 'inbox': {
        const a = name(cmd.agent);
        const since = cmd.since ? model.cursors.get(a) : undefined;
        const view = await h.call(op.inbox, { agent: a, ...(since === undefined ? {} : { since }) });
        if (since !== undefined) {
          for (const m of model.messages) {
            const r = m.receipts.get(a);
            if (r && !m.ack && r.acked_at === null && r.shown_cursor !== null && r.shown_cursor <= since) {
              r.acked_at = model.now;
            }
          }
        }
        const want = model.open(a, true).slice(0, 10);
        this.mine(a, view.messages ?? [], at);
        assert.deepEqual(
          (view.messages ?? []).map((m) => m.id),
          want.map((m) => m.id),
          `${at}: inbox`,
        );
        assert.equal(view.unread, model.open(a, true).length, `${at}: unread`);
        model.deliver(a, want, 'inbox', view.cursor);
        model.cursors.set(a, view.cursor);
        return;
      }
      case 'list': {
        const a = name(cmd.agent);
        const { messages } = await h.call(op.listMessages, { agent: a, box: cmd.box });
        this.mine(a, messages, at);
        const want = model.messages.filter((m) => (cmd.box === 'sent' ? m.from === a : m.receipts.has(a))).reverse();
        assert.deepEqual(
          messages.map((m) => m.id),
          want.map((m) => m.id),
          `${at}: list ${cmd.box}`,
        );
        if (cmd.box === 'inbox') model.deliver(a, want, 'inbox', null);
        return;
      }
      case 'show': {
        const m = pick(cmd.msg);
        if (!m) return;
        const a = name(cmd.agent);
        const got = await attempt(h.call(op.showMessage, { message_id: m.id, agent: a }));
        const party = m.from === a || m.receipts.has(a);
        assert.equal(got.ok ? 'ok' : got.code, party ? 'ok' : 'not_found', at);
        if (got.ok) this.mine(a, [got.value.message], at);
        if (party) model.deliver(a, [m], 'inbox', null);
        return;
      }
      case 'ack': {
        const m = pick(cmd.msg);
        if (!m) return;
        const a = name(cmd.agent);
        const got = await attempt(h.call(op.ackMessage, { message_id: m.id, agent: a }));
        const r = m.receipts.get(a);
        if (!r) {
          assert.deepEqual(got, { ok: false, code: 'not_found' }, at);
          return;
        }
        assert.ok(got.ok, at);
        assert.equal(got.value.acked, r.acked_at === null, at);
        this.mine(a, [got.value.message], at);
        r.acked_at ??= model.now;
        return;
      }
      case 'pending': {
        const a = name(cmd.agent);
        const got = await h.call(op.pendingMessages, { agent: a, via: cmd.via, all: cmd.all, peek: cmd.peek });
        const want = model.open(a, cmd.all).slice(0, 20);
        this.mine(a, got.messages, at);
        assert.deepEqual(
          got.messages.map((m) => m.id),
          want.map((m) => m.id),
          `${at}: pending`,
        );
        if (!cmd.peek) model.deliver(a, want, cmd.via, null);
        return;
      }
    }
  }

  /** After each step: the stored receipts are the model's, and none went backwards. */
  async check(at: string): Promise<void> {
    const { messages } = await this.h.call(op.listMessages, { limit: 500 });
    assert.equal(messages.length, this.model.messages.length, at);
    for (const m of messages) {
      const want = this.model.messages.find((x) => x.id === m.id);
      assert.ok(want, `${at}: unknown ${m.id}`);
      assert.deepEqual(
        m.receipts,
        [...want.receipts.entries()]
          .sort(([x], [y]) => x.localeCompare(y))
          .map(([agent, r]) => ({
            agent,
            delivered_at: iso(r.delivered_at),
            delivered_via: r.via,
            acked_at: iso(r.acked_at),
          })),
        `${at}: receipts of ${m.id}`,
      );
      const before = this.last.get(m.id);
      for (const r of before?.receipts ?? []) {
        const now = m.receipts.find((x) => x.agent === r.agent);
        if (r.delivered_at) {
          assert.equal(now?.delivered_at, r.delivered_at, `${at}: delivery never goes back`);
          assert.equal(now?.delivered_via, r.delivered_via, `${at}: nor changes how`);
        }
        if (r.acked_at) assert.equal(now?.acked_at, r.acked_at, `${at}: an ack never goes back`);
      }
      this.last.set(m.id, m);
    }
  }
}

export const messagesProperty = (makeStore: MakeStore) =>
  fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 40, size: 'max' }), async (cmds) => {
    const h = await harness(makeStore);
    try {
      // Every agent is known on the board before the first message: "*" then means all the others.
      for (const a of AGENTS) await h.call(op.createTask, { title: `hello from ${a}`, agent: a });
      const run = new Run(h);
      for (const [i, cmd] of cmds.entries()) {
        const at = `step ${i} ${JSON.stringify(cmd)}`;
        await run.step(cmd, at);
        await run.check(at);
      }
    } finally {
      await h.store.close();
    }
  });

/** Runs the property; COORD_PBT_RUNS and COORD_PBT_SEED override the defaults. */
export async function checkMessagesModelBased(makeStore: MakeStore, defaultRuns = 60): Promise<void> {
  const numRuns = Number(process.env.COORD_PBT_RUNS ?? defaultRuns);
  const seed = process.env.COORD_PBT_SEED === undefined ? undefined : Number(process.env.COORD_PBT_SEED);
  await fc.assert(messagesProperty(makeStore), {
    numRuns,
    includeErrorInReport: true,
    ...(seed === undefined ? {} : { seed }),
  });
}
