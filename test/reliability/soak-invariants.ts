/**
 * The soak's oracle: pure checks over what the workers were told (their lines), what the daemon recorded
 * (the event log, in seq order) and what it holds at the end. Each check returns the violations it found as
 * sentences, so a failing soak says exactly which task, fence or lock went wrong.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CoordEvent } from '../../src/core/model.js';
import type { Line } from './soak-run.js';

/** Every answer a well-formed soak request may get. Anything else (a 400, a 5xx, a dropped connection) is a bug. */
const ALLOWED: Record<string, Record<number, string[] | null>> = {
  post: { 200: null, 201: null, 409: ['idempotency_conflict'] },
  claim: { 200: null, 404: ['not_found'], 409: ['claimed', 'not_claimable', 'cancelled', 'expired', 'lock_conflict'] },
  claim_next: { 200: null, 204: null },
  heartbeat: { 200: null, 409: ['stale_claim', 'lease_expired', 'cancelled', 'expired', 'not_claimed'] },
  // result_mismatch: the two lanes of one worker can submit one claim at once with different results.
  submit: {
    200: null,
    409: ['stale_claim', 'lease_expired', 'cancelled', 'expired', 'not_claimed', 'result_mismatch'],
  },
  late_submit: {
    200: null,
    409: ['stale_claim', 'lease_expired', 'cancelled', 'expired', 'not_claimed', 'result_mismatch'],
  },
  resubmit: { 200: null, 409: ['result_mismatch'] },
  release: {
    200: null,
    404: ['not_found'],
    409: ['stale_claim', 'lease_expired', 'cancelled', 'expired', 'not_claimed'],
  },
  cancel: { 200: null, 404: ['not_found'], 409: ['not_claimable', 'expired'] },
  lock: { 201: null, 409: ['lock_conflict'] },
  unlock: { 200: null },
  inbox: { 200: null },
  list: { 200: null },
};

export function checkAnswers(lines: Line[]): string[] {
  const bad: string[] = [];
  for (const l of lines) {
    if (l.op === 'vanish') continue;
    const codes = ALLOWED[l.op]?.[l.status];
    if (codes === undefined || (codes !== null && !codes.includes(l.code ?? ''))) {
      bad.push(
        `${l.agent} ${l.op} ${l.task_id ?? l.lock_id ?? ''} answered ${l.status} ${l.code ?? ''} ${l.error ?? ''}`,
      );
    }
    if ((l.past ?? 0) > 0) bad.push(`${l.agent} ${l.op} showed ${l.past} claims whose lease ended before it asked`);
    if (l.op === 'resubmit' && l.changed === false && !(l.status === 200 && l.replayed === true)) {
      bad.push(
        `${l.agent} resubmitted ${l.task_id} unchanged and got ${l.status} replayed=${l.replayed}, not a replay`,
      );
    }
    if (l.op === 'resubmit' && l.changed === true && l.status !== 409) {
      bad.push(`${l.agent} resubmitted ${l.task_id} with a changed result and got ${l.status}`);
    }
  }
  return bad;
}

/** Counts of answers by operation and status (and error code), e.g. `claim 409 claimed`. */
export function answerCounts(lines: Line[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const l of lines) {
    const k = l.op === 'vanish' ? 'vanish' : `${l.op} ${l.status}${l.code ? ` ${l.code}` : ''}`;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

const TERMINAL = new Set(['task.completed', 'task.failed', 'task.cancelled', 'task.expired']);

export interface TaskFigures {
  tasks: number;
  claims: number;
  lapses: number;
  handoffs: number;
  releases: number;
  completed: number;
  failed: number;
  cancelled: number;
  expired: number;
}

/**
 * Replays each task's events in seq order through SPEC §2's state machine: claimed only from queued and by
 * an agent allowed to (its `for`, or the `to` of a handoff); fences +1 per claim; requeue and submit carry the
 * current fence; nothing after a terminal event.
 */
export function checkTaskEvents(events: CoordEvent[]): { violations: string[]; figures: TaskFigures } {
  const bad: string[] = [];
  const f: TaskFigures = {
    tasks: 0,
    claims: 0,
    lapses: 0,
    handoffs: 0,
    releases: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    expired: 0,
  };
  const tasks = new Map<string, { state: string; fence: number; eligible: string | null }>();
  for (const e of events) {
    if (!e.type.startsWith('task.') || e.task_id === null) continue;
    const id = e.task_id;
    const t = tasks.get(id);
    const where = `task ${id} seq ${e.seq} ${e.type}`;
    if (e.type === 'task.created') {
      if (t) bad.push(`${where}: created twice`);
      tasks.set(id, { state: 'queued', fence: 0, eligible: (e.data.for as string | null) ?? null });
      f.tasks++;
      continue;
    }
    if (!t) {
      bad.push(`${where}: event before task.created`);
      continue;
    }
    if (TERMINAL.has(t.state)) {
      bad.push(`${where}: after terminal ${t.state}`);
      continue;
    }
    const fence = e.data.fence as number | undefined;
    switch (e.type) {
      case 'task.claimed':
        f.claims++;
        if (t.state !== 'queued') bad.push(`${where}: claimed from ${t.state}`);
        if (fence !== t.fence + 1) bad.push(`${where}: fence ${fence} after ${t.fence}`);
        if (t.eligible !== null && e.agent !== t.eligible)
          bad.push(`${where}: ${e.agent} claimed a task for ${t.eligible}`);
        t.fence = fence ?? t.fence + 1;
        t.state = 'claimed';
        break;
      case 'task.requeued': {
        if (t.state !== 'claimed') bad.push(`${where}: requeued from ${t.state}`);
        if (fence !== t.fence) bad.push(`${where}: requeue names fence ${fence}, current is ${t.fence}`);
        const reason = e.data.reason as string;
        if (reason === 'lease_lapsed') f.lapses++;
        else if (reason === 'handoff') f.handoffs++;
        else if (reason === 'released') f.releases++;
        if (reason === 'handoff') t.eligible = e.data.to as string;
        t.state = 'queued';
        break;
      }
      case 'task.completed':
      case 'task.failed':
        if (t.state !== 'claimed') bad.push(`${where}: submitted from ${t.state}`);
        if (fence !== t.fence) bad.push(`${where}: submit names fence ${fence}, current is ${t.fence}`);
        if (e.type === 'task.completed') f.completed++;
        else f.failed++;
        t.state = e.type;
        break;
      case 'task.cancelled':
      case 'task.expired':
        if (e.type === 'task.cancelled') f.cancelled++;
        else f.expired++;
        t.state = e.type;
        break;
      default:
        bad.push(`${where}: unknown event type`);
    }
  }
  return { violations: bad, figures: f };
}

const claimKey = (task: string, fence: number) => `${task}@${fence}`;

/**
 * No double claim: no (task, fence) was acknowledged as a new claim twice; a re-claim answers the claim it
 * repeats; the acknowledged claims and the task.claimed events are the same set, agent for agent. Fenced
 * writes: an acknowledged first submit or release names the fence the event log ended, with the claim_id
 * that was granted for that fence; at most one first submit per task is acknowledged.
 */
export function checkClaims(lines: Line[], events: CoordEvent[]): { violations: string[]; reclaims: number } {
  const bad: string[] = [];
  const granted = new Map<string, { claim_id: string; agent: string }>();
  const claims = lines.filter((l) => (l.op === 'claim' || l.op === 'claim_next') && l.status === 200);
  for (const l of claims.filter((c) => !c.reclaimed)) {
    const k = claimKey(l.task_id!, l.fence!);
    const prior = granted.get(k);
    if (prior)
      bad.push(`double claim: ${k} granted to ${prior.agent} (${prior.claim_id}) and ${l.agent} (${l.claim_id})`);
    else granted.set(k, { claim_id: l.claim_id!, agent: l.agent });
  }
  const reclaims = claims.filter((c) => c.reclaimed);
  for (const l of reclaims) {
    const k = claimKey(l.task_id!, l.fence!);
    const g = granted.get(k);
    if (!g || g.claim_id !== l.claim_id || g.agent !== l.agent) {
      bad.push(`re-claim of ${k} by ${l.agent} answered claim ${l.claim_id}, granted was ${JSON.stringify(g)}`);
    }
  }
  const claimed = new Map<string, string>();
  const ended = new Map<string, CoordEvent>();
  for (const e of events) {
    if (e.task_id === null) continue;
    const k = claimKey(e.task_id, e.data.fence as number);
    if (e.type === 'task.claimed') claimed.set(k, e.agent ?? '');
    if (e.type === 'task.requeued' || e.type === 'task.completed' || e.type === 'task.failed') ended.set(k, e);
  }
  for (const [k, g] of granted) {
    if (claimed.get(k) !== g.agent) bad.push(`claim ${k} acknowledged to ${g.agent}, event log says ${claimed.get(k)}`);
  }
  for (const [k, agent] of claimed) {
    if (!granted.has(k)) bad.push(`claim ${k} by ${agent} is in the event log but no worker was told`);
  }
  const firstSubmits = new Map<string, Line>();
  for (const l of lines) {
    const isSubmit = (l.op === 'submit' || l.op === 'late_submit') && l.status === 200 && !l.replayed;
    if (!isSubmit && !(l.op === 'release' && l.status === 200)) continue;
    const k = claimKey(l.task_id!, l.fence!);
    const e = ended.get(k);
    const want = l.op === 'release' ? 'task.requeued' : `task.${l.result_status}`;
    if (!e || e.type !== want) bad.push(`${l.agent} ${l.op} of ${k} acknowledged, but the claim ended with ${e?.type}`);
    if (granted.get(k)?.claim_id !== l.claim_id) bad.push(`${l.agent} ${l.op} of ${k} with a claim_id never granted`);
    if (l.op === 'release' && e && (e.data.to ?? undefined) !== l.to)
      bad.push(`release of ${k}: to ${l.to} vs ${e.data.to}`);
    if (isSubmit) {
      if (firstSubmits.has(l.task_id!)) bad.push(`two first submits of ${l.task_id} acknowledged`);
      firstSubmits.set(l.task_id!, l);
    }
  }
  return { violations: bad, reclaims: reclaims.length };
}

/** Every acknowledged first submit is in `tasks` (the final rows) with the state and result it submitted. */
export function checkSubmitsKept(
  lines: Line[],
  tasks: Map<string, { state: string; result_status: string | null; result: unknown }>,
): { violations: string[]; checked: number } {
  const bad: string[] = [];
  let checked = 0;
  for (const l of lines) {
    if (!((l.op === 'submit' || l.op === 'late_submit') && l.status === 200 && !l.replayed)) continue;
    checked++;
    const t = tasks.get(l.task_id!);
    if (!t) bad.push(`submitted task ${l.task_id} is missing`);
    else if (
      t.state !== l.result_status ||
      t.result_status !== l.result_status ||
      !isDeepStrictEqual(t.result, l.result)
    ) {
      bad.push(
        `task ${l.task_id} is ${t.state} ${JSON.stringify(t.result)}, ${l.agent} submitted ${l.result_status} ${JSON.stringify(l.result)}`,
      );
    }
  }
  return { violations: bad, checked };
}

/** Rule 7: every acknowledged post with one idempotency key got the same task. */
export function checkIdempotency(lines: Line[]): { violations: string[]; keys: number; replays: number } {
  const bad: string[] = [];
  const byKey = new Map<string, string>();
  let replays = 0;
  for (const l of lines) {
    if (l.op !== 'post' || !l.key || (l.status !== 200 && l.status !== 201)) continue;
    if (l.status === 200) replays++;
    const prior = byKey.get(l.key);
    if (prior !== undefined && prior !== l.task_id) bad.push(`key ${l.key} gave tasks ${prior} and ${l.task_id}`);
    byKey.set(l.key, l.task_id!);
  }
  return { violations: bad, keys: byKey.size, replays };
}

/** An independent oracle for SPEC rule 11's overlap: same place, or one inside the other (`dir/` covers it). */
export function overlaps(a: string, b: string): boolean {
  const x = a.replace(/\/$/, '');
  const y = b.replace(/\/$/, '');
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}
const setsOverlap = (a: string[], b: string[]) => a.some((x) => b.some((y) => overlaps(x, y)));

/**
 * No lock held twice: replays lock.acquired / lock.released in seq order. When a lock is acquired, every
 * lock not yet released that overlaps it must be dead at that instant: only a plain lock whose lease had
 * passed may still be in the log unreleased (it stopped conflicting when its lease passed, and is deleted
 * later — by the next lock acquisition or the daemon's sweep). A claim's lock is always released in the
 * transaction that ends its claim, before anything else in it, so an unreleased overlapping claim lock is a
 * violation. (The soak never renews a lock, so a plain lock's lease is the one its lock.acquired names.)
 */
export function checkLockEvents(events: CoordEvent[]): {
  violations: string[];
  acquired: number;
  lateReleases: number;
} {
  const bad: string[] = [];
  const open = new Map<string, { resources: string[]; plain: boolean; lease_until: number; agent: string | null }>();
  let acquired = 0;
  let lateReleases = 0;
  for (const e of events) {
    if (e.type === 'lock.acquired') {
      acquired++;
      const resources = e.data.resources as string[];
      const at = Date.parse(e.at);
      for (const [id, l] of open) {
        if (!setsOverlap(l.resources, resources)) continue;
        if (l.plain && l.lease_until <= at) lateReleases++;
        else {
          bad.push(
            `seq ${e.seq}: ${e.agent} acquired ${e.lock_id} [${resources}] while ${id} [${l.resources}] of ${l.agent} was live`,
          );
        }
      }
      open.set(e.lock_id!, {
        resources,
        plain: e.task_id === null,
        lease_until: Date.parse(e.data.lease_until as string),
        agent: e.agent,
      });
    } else if (e.type === 'lock.released') {
      if (!open.delete(e.lock_id!)) bad.push(`seq ${e.seq}: released ${e.lock_id}, which was not held`);
    }
  }
  return { violations: bad, acquired, lateReleases };
}

/** Each acknowledged lock (plain, or taken with a claim) is in the event log with the same resources. */
export function checkLocksLogged(lines: Line[], events: CoordEvent[]): string[] {
  const logged = new Map(
    events.filter((e) => e.type === 'lock.acquired').map((e) => [e.lock_id!, e.data.resources as string[]]),
  );
  const bad: string[] = [];
  for (const l of lines) {
    const lock = l.op === 'lock' && l.status === 201 ? { lock_id: l.lock_id!, resources: l.resources! } : l.lock;
    if (!lock || l.status >= 300 || l.reclaimed) continue;
    if (!isDeepStrictEqual(logged.get(lock.lock_id), lock.resources)) {
      bad.push(
        `${l.agent} was told it holds ${lock.lock_id} [${lock.resources}], the log says [${logged.get(lock.lock_id)}]`,
      );
    }
  }
  return bad;
}

/** Pairwise: no two live locks overlap. */
export function checkLiveLocks(locks: { lock_id: string; resources: string[] }[]): string[] {
  const bad: string[] = [];
  for (let i = 0; i < locks.length; i++) {
    for (let j = i + 1; j < locks.length; j++) {
      const a = locks[i]!;
      const b = locks[j]!;
      if (setsOverlap(a.resources, b.resources))
        bad.push(`live ${a.lock_id} [${a.resources}] overlaps ${b.lock_id} [${b.resources}]`);
    }
  }
  return bad;
}
