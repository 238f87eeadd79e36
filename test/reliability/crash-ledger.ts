/**
 * What the crash-durability clients were told, kept across rounds: every acknowledged write as a fact
 * that must read back exactly so after any number of kill -9s (SPEC §3.14). Facts come from client
 * logs and from the checker's own retries of writes that were in flight when the daemon died.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Task } from '../../src/core/model.js';

export type Op = 'create' | 'claim' | 'claim_next' | 'heartbeat' | 'submit' | 'cancel' | 'lock' | 'unlock';
export const OPS: Op[] = ['create', 'claim', 'claim_next', 'heartbeat', 'submit', 'cancel', 'lock', 'unlock'];

/** One request of one client: what it intended and how it ended. */
export interface Step {
  agent: string;
  n: number;
  op: Op;
  method: string;
  path: string;
  json: any;
  /** ack: a 2xx arrived whole; nack: another status; lost: the daemon vanished with it in flight. */
  outcome: 'ack' | 'nack' | 'lost';
  status?: number;
  body?: any;
  /** Sent again by the checker after a restart, because the first answer was lost. */
  retried?: boolean;
}

/** A task as the API answers it. */
export type TaskJson = Task;

/** The fields a create fixes for good. */
export const IMMUTABLE = [
  'id',
  'board',
  'kind',
  'title',
  'body',
  'priority',
  'labels',
  'for',
  'created_by',
  'created_at',
  'expires_at',
  'idempotency_key',
] as const;

export interface Claim {
  agent: string;
  claim_id: string;
  fence: number;
  /** The lease end the last acknowledged claim or heartbeat answered. */
  lease_until: string;
  /** The files locked with the claim (rule 10): held exactly as long as the claim. */
  lock?: { lock_id: string; resources: string[] };
  end?: { kind: 'submit'; req: { claim_id: string; status: string; result?: unknown } } | { kind: 'cancel' };
}

export interface LockFact {
  agent: string;
  board: string;
  resources: string[];
  unlocked: boolean;
}

export class Ledger {
  readonly tasks = new Map<string, TaskJson>();
  readonly keys = new Map<string, string>();
  readonly claims = new Map<string, Claim>();
  /** Private queued tasks cancelled by their author (no claim involved). */
  readonly cancelled = new Set<string>();
  readonly locks = new Map<string, LockFact>();
  /** Every title any client meant to post, acknowledged or not: nothing else may appear on the board. */
  readonly titles = new Set<string>();
  readonly acked = Object.fromEntries(OPS.map((o) => [o, 0])) as Record<Op, number>;
  readonly violations: string[] = [];

  note(step: Pick<Step, 'op' | 'json'>): void {
    if (step.op === 'create') this.titles.add(String(step.json.title).trim());
  }

  private fail(step: Step, what: string): void {
    this.violations.push(`${step.agent}#${step.n} ${step.op} ${step.path}: ${what}`);
  }

  /** Takes in one acknowledged write, checking the answer says what was asked. */
  apply(step: Step): void {
    const { op, json: req, body } = step;
    if (op === 'claim_next' && step.status === 204) return; // nothing claimable: nothing written
    this.acked[op] += 1;
    switch (op) {
      case 'create': {
        const t = body.task as TaskJson;
        const want = {
          title: String(req.title).trim(),
          body: req.body ?? '',
          kind: req.kind ?? 'task',
          priority: req.priority ?? 0,
          labels: req.labels ?? [],
          for: req.for ?? null,
          board: req.board ?? 'default',
          idempotency_key: req.idempotency_key ?? null,
        };
        for (const [k, v] of Object.entries(want)) {
          if (!isDeepStrictEqual(t[k as keyof TaskJson], v))
            this.fail(step, `answered ${k}=${JSON.stringify(t[k as keyof TaskJson])}, asked ${JSON.stringify(v)}`);
        }
        if (step.status !== (body.created ? 201 : 200))
          this.fail(step, `status ${step.status} with created=${body.created}`);
        const known = this.tasks.get(t.id);
        if (known && body.created) this.fail(step, `created=true for a task already acknowledged`);
        if (!known) this.tasks.set(t.id, t);
        if (req.idempotency_key) {
          const k = `${want.board}\n${req.idempotency_key}`;
          const had = this.keys.get(k);
          if (had && had !== t.id) this.fail(step, `key answered task ${t.id}, earlier ${had}`);
          this.keys.set(k, t.id);
        }
        return;
      }
      case 'claim':
      case 'claim_next': {
        const t = body.task as TaskJson;
        if (t.claimed_by !== req.agent || t.attempts !== body.fence || t.state !== 'claimed') {
          this.fail(step, `answered ${t.state} by ${t.claimed_by} attempts ${t.attempts} fence ${body.fence}`);
        }
        const had = this.claims.get(t.id);
        if (had && (had.claim_id !== body.claim_id || had.fence !== body.fence)) {
          this.fail(step, `second claim ${body.fence} on a task whose acknowledged claim ${had.fence} never ended`);
        }
        if (had && !body.reclaimed) this.fail(step, 'same claim again without reclaimed=true');
        if (had && !isDeepStrictEqual(had.lock, body.lock))
          this.fail(step, `re-claim answered lock ${JSON.stringify(body.lock)}`);
        if (req.files && !body.reclaimed && !body.lock) this.fail(step, 'a claim with files answered no lock');
        if (!had) {
          this.claims.set(t.id, {
            agent: req.agent,
            claim_id: body.claim_id,
            fence: body.fence,
            lease_until: body.lease_until,
            ...(body.lock ? { lock: body.lock } : {}),
          });
        }
        return;
      }
      case 'heartbeat': {
        const c = this.claimOf(step);
        if (c) c.lease_until = body.lease_until;
        return;
      }
      case 'submit': {
        const t = body.task as TaskJson;
        const c = this.claimOf(step);
        if (t.state !== req.status || !isDeepStrictEqual(t.result, req.result ?? null)) {
          this.fail(step, `answered ${t.state} ${JSON.stringify(t.result)}`);
        }
        if (body.replayed && !step.retried) this.fail(step, 'a first submit answered replayed=true');
        if (c && !c.end) c.end = { kind: 'submit', req };
        return;
      }
      case 'cancel': {
        const id = taskIdOf(step.path);
        if (body.task.state !== 'cancelled') this.fail(step, `answered state ${body.task.state}`);
        const c = this.claims.get(id);
        if (c && !c.end && c.agent === req.agent) c.end = { kind: 'cancel' };
        else if (!c) this.cancelled.add(id);
        return;
      }
      case 'lock':
        this.locks.set(body.lock_id, {
          agent: req.agent,
          board: req.board ?? 'default',
          resources: body.resources,
          unlocked: false,
        });
        return;
      case 'unlock': {
        const l = this.locks.get(lockIdOf(step.path));
        if (l) l.unlocked = true;
        return;
      }
    }
  }

  private claimOf(step: Step): Claim | undefined {
    const c = this.claims.get(taskIdOf(step.path));
    if (!c || c.claim_id !== step.json.claim_id) {
      this.fail(step, 'acknowledged with a claim_id no acknowledged claim gave');
      return undefined;
    }
    return c;
  }
}

export const taskIdOf = (path: string): string => path.split('/')[3]!;
export const lockIdOf = (path: string): string => path.split('/')[3]!;
