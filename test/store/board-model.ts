/**
 * A small, pure model of SPEC §2–§3 (one board, no locks or sessions) that the
 * model-based test runs beside a real store. It knows nothing of SQL: a task is
 * a record, time is a number, and every operation says what a caller must get.
 *
 * Where the SPEC allows several error codes, the model pins the one the shared
 * rules (src/core/board/rules.ts) choose, and says so: every store must answer alike.
 */
import type { ResultStatus, TaskState } from '../../src/core/model.js';

export type ClaimEnd = 'lapsed' | 'released' | 'submitted' | 'cancelled' | 'expired';

export interface ModelTask {
  id: string;
  created_by: string;
  for: string | null;
  /** Who last handed it over (release with `to`). */
  handed_by?: string | null;
  priority: number;
  created_at: number;
  expires_at: number;
  state: TaskState;
  claimed_by: string | null;
  lease_until: number | null;
  attempts: number;
  /** The last claim granted (the current one while claimed), how it ended, and its lease length. */
  claim_id: string | null;
  claim_end: ClaimEnd | null;
  claim_lease_ms: number;
  result: { status: ResultStatus; value: unknown } | null;
  /** Every claim_id ever granted on this task, oldest first. */
  claims: string[];
  /** SPEC §11: the tasks this one waits for, in the order added. */
  blocked_by: string[];
}

/** What a caller must get: an error code (with the holder for `claimed`) or success. */
export type Expected<T = object> =
  | ({ ok: true } & T)
  | { ok: false; code: string; holder?: string; lease_until?: number };

const fail = (code: string): Expected<never> => ({ ok: false, code });
const TERMINAL = new Set<TaskState>(['completed', 'failed', 'cancelled', 'expired']);
export const isTerminal = (t: ModelTask): boolean => TERMINAL.has(t.state);

export class BoardModel {
  readonly tasks = new Map<string, ModelTask>();
  /** Events the store must have appended so far, as `type:task_id`. */
  readonly events: string[] = [];

  constructor(public now: number) {}

  /** Time passes; whatever fell due is moved (the store does it lazily, before its next read or write). */
  advance(ms: number): void {
    this.now += ms;
    for (const t of this.tasks.values()) {
      if ((t.state === 'queued' || t.state === 'claimed') && t.expires_at <= this.now) {
        if (t.state === 'claimed') t.claim_end = 'expired';
        t.state = 'expired';
        t.lease_until = null;
        this.events.push(`task.expired:${t.id}`);
      }
    }
    for (const t of this.tasks.values()) {
      if (t.state === 'claimed' && (t.lease_until ?? 0) <= this.now) {
        Object.assign(t, { state: 'queued', claimed_by: null, lease_until: null, claim_end: 'lapsed' });
        this.events.push(`task.requeued:${t.id}`);
      }
    }
  }

  /**
   * SPEC §11: a post naming a blocker the agent cannot see is not_found (nothing
   * written); the store then never told us an id, so the caller skips `post`.
   */
  checkPost(agent: string, blockers: string[]): Expected {
    for (const b of blockers) {
      const t = this.tasks.get(b);
      if (!t || !this.visible(t, agent)) return fail('not_found');
    }
    return { ok: true };
  }

  /** The blockers of `t` that are not completed. */
  open(t: ModelTask): string[] {
    return t.blocked_by.filter((b) => this.tasks.get(b)?.state !== 'completed');
  }

  ready(t: ModelTask): boolean {
    return t.state === 'queued' && this.open(t).length === 0;
  }

  post(
    id: string,
    p: { agent: string; for: string | null; priority: number; ttl_ms: number; blocked_by?: string[] },
  ): void {
    this.tasks.set(id, {
      id,
      created_by: p.agent,
      for: p.for,
      priority: p.priority,
      created_at: this.now,
      expires_at: this.now + p.ttl_ms,
      state: 'queued',
      claimed_by: null,
      lease_until: null,
      attempts: 0,
      claim_id: null,
      claim_end: null,
      claim_lease_ms: 0,
      result: null,
      claims: [],
      blocked_by: [...new Set(p.blocked_by ?? [])],
    });
    this.events.push(`task.created:${id}`);
  }

  /** Rule 4 (widened as documented in rules.ts): the target, the author and who handed it over see a private task. */
  visible(t: ModelTask, agent: string): boolean {
    return t.for === null || t.for === agent || t.created_by === agent || t.handed_by === agent;
  }

  /** Rules 1–4. `fresh` is the claim_id the store minted for this call. */
  claim(
    id: string,
    agent: string,
    lease_ms: number,
    fresh: string,
  ): Expected<{ claim_id: string; reclaimed: boolean }> {
    const t = this.tasks.get(id);
    if (!t || !this.visible(t, agent)) return fail('not_found');
    switch (t.state) {
      case 'claimed':
        if (t.claimed_by === agent) return { ok: true, claim_id: t.claim_id ?? '', reclaimed: true };
        return { ok: false, code: 'claimed', holder: t.claimed_by ?? '', lease_until: t.lease_until ?? 0 };
      case 'cancelled':
      case 'expired':
        return fail(t.state);
      case 'completed':
      case 'failed':
        return fail('not_claimable');
      case 'queued':
        if (t.for !== null && t.for !== agent) return fail('not_claimable');
        if (!this.ready(t)) return fail('blocked');
        this.grant(t, agent, lease_ms, fresh);
        return { ok: true, claim_id: fresh, reclaimed: false };
    }
  }

  /** Claim-next: the queued tasks `agent` may claim with the lowest priority, then the oldest — any of ties. */
  nextCandidates(agent: string): string[] {
    const open = [...this.tasks.values()].filter((t) => this.ready(t) && (t.for === null || t.for === agent));
    if (open.length === 0) return [];
    const best = open.reduce((a, b) =>
      b.priority < a.priority || (b.priority === a.priority && b.created_at < a.created_at) ? b : a,
    );
    return open.filter((t) => t.priority === best.priority && t.created_at === best.created_at).map((t) => t.id);
  }

  claimNext(id: string, agent: string, lease_ms: number, fresh: string): void {
    const t = this.tasks.get(id);
    if (!t) throw new Error(`model: no task ${id}`);
    this.grant(t, agent, lease_ms, fresh);
  }

  private grant(t: ModelTask, agent: string, lease_ms: number, claim_id: string): void {
    Object.assign(t, {
      state: 'claimed',
      claimed_by: agent,
      lease_until: this.now + lease_ms,
      attempts: t.attempts + 1,
      claim_id,
      claim_end: null,
      claim_lease_ms: lease_ms,
    });
    t.claims.push(claim_id);
    this.events.push(`task.claimed:${t.id}`);
  }

  /**
   * Rule 5. The SPEC allows stale_claim, lease_expired, cancelled, expired or
   * not_claimed; the shared rules pick: a terminal cancel/expiry names itself,
   * an older claim is stale (not_claimed if the task was never claimed), and the
   * last claim says how it ended (lapsed → lease_expired, submitted →
   * not_claimed, released → stale_claim).
   */
  private fence(t: ModelTask | undefined, claim_id: string): Expected<{ task: ModelTask }> {
    if (!t) return fail('not_found');
    if (t.state === 'cancelled' || t.state === 'expired') return fail(t.state);
    if (t.claim_id !== claim_id) return fail(t.attempts > 0 ? 'stale_claim' : 'not_claimed');
    if (t.state === 'claimed') return { ok: true, task: t };
    if (t.claim_end === 'lapsed') return fail('lease_expired');
    if (t.claim_end === 'submitted') return fail('not_claimed');
    return fail('stale_claim');
  }

  heartbeat(id: string, claim_id: string, lease_ms: number | null): Expected<{ lease_until: number }> {
    const f = this.fence(this.tasks.get(id), claim_id);
    if (!f.ok) return f;
    f.task.lease_until = this.now + (lease_ms ?? f.task.claim_lease_ms);
    return { ok: true, lease_until: f.task.lease_until };
  }

  /** Rule 9: with `to`, the task is queued again for that agent only. */
  release(id: string, claim_id: string, to: string | null): Expected {
    const f = this.fence(this.tasks.get(id), claim_id);
    if (!f.ok) return f;
    // A handoff's previous holder keeps sight of the task it gave away (issue 26).
    if (to !== null) Object.assign(f.task, { for: to, handed_by: f.task.claimed_by });
    Object.assign(f.task, { state: 'queued', claimed_by: null, lease_until: null, claim_end: 'released' });
    this.events.push(`task.requeued:${id}`);
    return { ok: true };
  }

  /** Rule 6: the finishing claim may submit again; the same result replays, another never overwrites. */
  submit(id: string, claim_id: string, status: ResultStatus, value: unknown): Expected<{ replayed: boolean }> {
    const t = this.tasks.get(id);
    if (t?.result && t.claim_id === claim_id) {
      const same = t.result.status === status && JSON.stringify(t.result.value) === JSON.stringify(value);
      return same ? { ok: true, replayed: true } : fail('result_mismatch');
    }
    const f = this.fence(t, claim_id);
    if (!f.ok) return f;
    Object.assign(f.task, { state: status, lease_until: null, claim_end: 'submitted', result: { status, value } });
    this.events.push(`task.${status}:${id}`);
    // SPEC §11: each queued task this was the last open blocker of is ready now.
    if (status === 'completed') {
      for (const d of this.tasks.values()) {
        if (d.blocked_by.includes(id) && this.ready(d)) this.events.push(`task.ready:${d.id}`);
      }
    }
    return { ok: true, replayed: false };
  }

  /** Anyone who may see a task may cancel it; cancelling twice is fine; finished tasks stay finished. */
  cancel(id: string, agent: string): Expected {
    const t = this.tasks.get(id);
    if (!t || !this.visible(t, agent)) return fail('not_found');
    if (t.state === 'cancelled') return { ok: true };
    if (t.state === 'expired') return fail('expired');
    if (t.state === 'completed' || t.state === 'failed') return fail('not_claimable');
    if (t.state === 'claimed') t.claim_end = 'cancelled';
    Object.assign(t, { state: 'cancelled', lease_until: null });
    this.events.push(`task.cancelled:${id}`);
    return { ok: true };
  }

  /**
   * SPEC §11: add needs a queued task, a finished task never changes; every
   * added id visible; no cycle. On success the edges change, and a task whose
   * last open blocker was removed is ready (task.ready).
   */
  setDeps(id: string, agent: string, add: string[], remove: string[]): Expected {
    const t = this.tasks.get(id);
    // The operation refuses an id both added and removed before it asks the store anything.
    if (add.some((a) => remove.includes(a))) return fail('invalid_request');
    if (!t || !this.visible(t, agent)) return fail('not_found');
    if ((add.length > 0 && t.state !== 'queued') || isTerminal(t)) {
      if (t.state === 'claimed')
        return { ok: false, code: 'claimed', holder: t.claimed_by ?? '', lease_until: t.lease_until ?? 0 };
      return fail(t.state === 'cancelled' || t.state === 'expired' ? t.state : 'not_claimable');
    }
    const added = [...new Set(add)].filter((a) => !t.blocked_by.includes(a));
    for (const a of added) {
      const b = this.tasks.get(a);
      if (!b || !this.visible(b, agent)) return fail('not_found');
    }
    for (const a of added) if (a === id || this.reaches(a, id)) return fail('dependency_cycle');
    const wasBlocked = this.open(t).length > 0;
    const after = [...t.blocked_by.filter((b) => !remove.includes(b)), ...added];
    if (after.length > 50) return fail('invalid_request');
    t.blocked_by = after;
    if (wasBlocked && this.ready(t)) this.events.push(`task.ready:${id}`);
    return { ok: true };
  }

  /** Does `from` wait for `to`, directly or through others? */
  private reaches(from: string, to: string): boolean {
    const todo = [from];
    const seen = new Set(todo);
    while (todo.length) {
      const id = todo.pop()!;
      if (id === to) return true;
      for (const b of this.tasks.get(id)?.blocked_by ?? []) {
        if (seen.has(b)) continue;
        seen.add(b);
        todo.push(b);
      }
    }
    return false;
  }

  /** The inbox (SPEC §6) as sets: own claims, private tasks for the agent, the board's open tasks. */
  inbox(agent: string): { claims: string[]; mine: string[]; open: string[] } {
    const all = [...this.tasks.values()];
    const ids = (f: (t: ModelTask) => boolean) =>
      all
        .filter(f)
        .map((t) => t.id)
        .sort();
    return {
      claims: ids((t) => t.state === 'claimed' && t.claimed_by === agent),
      mine: ids((t) => this.ready(t) && t.for === agent),
      open: ids((t) => this.ready(t) && t.for === null),
    };
  }

  /** Which of the task's claim_ids is live now (at most one, by construction). */
  liveClaim(t: ModelTask): string | null {
    return t.state === 'claimed' ? t.claim_id : null;
  }
}
