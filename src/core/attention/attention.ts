/**
 * What needs a person (SPEC §19), as one pure function over what the board already knows. The operation
 * (ops/attention.ts) gathers the facts; the HTTP route, `coord attention`, `coord top`, the dashboard and
 * `serve --notify` all read the one list this makes.
 *
 * item      — one thing waiting on a person: what, why, since when, and the one command that resolves it.
 *             Its `id` is its kind and subject (`review:k3x9`, `agent_waiting:claude#1a2b`), so the same
 *             thing asked again is the same item, and one that is resolved and comes back is new (once
 *             gone, an id is forgotten by whoever watches: serve --notify).
 * kind      — the reasons, most urgent first (ATTENTION_KINDS): an agent stopped on a question blocks work
 *             now; a dirty target blocks the whole queue; a review, conflict or failed check blocks one
 *             task's merge; a failed task, a paused or idle agent and an old hold can wait a little.
 */

export const ATTENTION_KINDS = [
  'agent_waiting',
  'budget_spent',
  'target_dirty',
  'review',
  'conflict',
  'check_failed',
  'integration_blocked',
  'task_failed',
  'task_paused',
  'agent_idle',
  'hold_old',
] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

export interface AttentionItem {
  id: string;
  kind: AttentionKind;
  what: string;
  why: string;
  /** RFC 3339: since when it has been waiting. */
  since: string;
  /** The one command that resolves it (the dashboard shows a button where it has one). */
  command: string;
  task_id?: string;
  agent?: string;
}

/** Claims with no activity this long are shown (`coord serve --idle-after S` changes it). */
export const IDLE_AFTER_MS = 15 * 60_000;
/** Change holds older than this are shown. */
export const OLD_HOLD_MS = 24 * 3600_000;

/** One task of the integration queue that stopped (every state but pending and merged). */
export interface StoppedIntegration {
  task_id: string;
  title: string;
  /** Who did the work: a conflict's or failed check's follow-up is theirs. */
  agent: string;
  state: 'awaiting_review' | 'conflict' | 'check_failed' | 'blocked';
  reason: string | null;
  /** When it entered this state. */
  since: string;
  target?: string | undefined;
  /** The follow-up task of a conflict or failed check, as it stands now. */
  followup?: { id: string; state: string; claimed_by: string | null; lease_until: string | null } | undefined;
}

/** A task that failed and nobody (but its claimant or coord) has written a note on since. */
export interface FailedTask {
  task_id: string;
  title: string;
  agent: string | null;
  /** When it failed. */
  since: string;
  /** The last note on it, if any (often the failure's own). */
  last_note?: string | undefined;
}

/** A live claim and when its agent was last seen doing anything. */
export interface HeldClaim {
  task_id: string;
  title: string;
  agent: string;
  last_seen: string;
}

export interface OldHold {
  lock_id: string;
  agent: string;
  resources: string[];
  since: string;
  task_id: string | null;
  worktree: string | null;
}

/**
 * An agent's own state (SPEC §18's supervisor: starting, working, idle, waiting, paused, exited), or an agent
 * that told coord through its client's notification hook that it waits for a person (state `waiting`).
 */
export interface AgentRunState {
  agent: string;
  state: string;
  reason?: string | undefined;
  since: string;
  task_id?: string | undefined;
}

/** SPEC §18: a task paused at a usage limit until `until`. */
export interface PausedTask {
  task_id: string;
  title: string;
  agent?: string | undefined;
  until: string;
  since: string;
}

export interface AttentionFacts {
  now: number;
  idle_after_ms: number;
  hold_after_ms?: number;
  integrations: StoppedIntegration[];
  failed: FailedTask[];
  claims: HeldClaim[];
  holds: OldHold[];
  agents?: AgentRunState[];
  paused?: PausedTask[];
  /** SPEC §18: a run's budget spent (nothing new is launched). */
  budget?: { what: string; since: string } | null;
}

const short = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A follow-up is held while a claim on it has a live lease (SPEC §19). */
const held = (f: StoppedIntegration['followup'], now: number) =>
  f !== undefined && f.state === 'claimed' && f.lease_until !== null && Date.parse(f.lease_until) > now;

/** A dirty checked-out target is what the integrator reports as `blocked` naming the work tree's changes. */
export const isDirtyTarget = (reason: string | null) =>
  reason !== null && /dirty|uncommitted|local changes/i.test(reason);

/** A conflict or failed check stops one merge until its follow-up is worked on. */
function stoppedMergeItem(i: StoppedIntegration, kind: 'conflict' | 'check_failed', now: number): AttentionItem | null {
  if (held(i.followup, now)) return null;
  const t = `#${i.task_id} ${short(i.title, 60)}`;
  const target = i.target ?? 'the target';
  const what =
    kind === 'conflict'
      ? `${t} conflicts with ${target}${i.reason ? ` in ${short(i.reason)}` : ''}`
      : `${t} failed the check on ${target}`;
  const base = { task_id: i.task_id, agent: i.agent, since: i.since, id: `${kind}:${i.task_id}`, kind, what };
  const f = i.followup;
  if (f && f.state === 'queued') {
    return {
      ...base,
      why: `its follow-up #${f.id} waits and no agent is working on it`,
      command: `coord claim ${f.id} --agent ${i.agent}`,
    };
  }
  return { ...base, why: stoppedMergeWhy(f), command: `coord integrate --retry ${i.task_id} --once` };
}

/** Why a stopped merge whose follow-up is not simply queued still needs a person. */
function stoppedMergeWhy(f: StoppedIntegration['followup']): string {
  if (!f) return 'nothing is working on it';
  const state = f.state === 'claimed' ? 'held by a claim whose lease has lapsed' : f.state;
  return `its follow-up #${f.id} is ${state} and the merge is still stopped`;
}

/** A blocked merge: a dirty checked-out target holds the whole queue; anything else holds this task. */
function blockedItem(i: StoppedIntegration): AttentionItem {
  const target = i.target ?? 'the target';
  const dirty = isDirtyTarget(i.reason);
  const kind = dirty ? 'target_dirty' : 'integration_blocked';
  return {
    task_id: i.task_id,
    agent: i.agent,
    since: i.since,
    id: `${kind}:${i.task_id}`,
    kind,
    what: dirty ? `${target}'s work tree has uncommitted changes` : `#${i.task_id} cannot be merged into ${target}`,
    why: `${dirty ? `the queue waits behind #${i.task_id}: ` : ''}${short(i.reason ?? 'blocked', 200)}`,
    command: `coord integrate --retry ${i.task_id} --once`,
  };
}

function integrationItem(i: StoppedIntegration, now: number): AttentionItem | null {
  switch (i.state) {
    case 'awaiting_review':
      return {
        task_id: i.task_id,
        agent: i.agent,
        since: i.since,
        id: `review:${i.task_id}`,
        kind: 'review',
        what: `#${i.task_id} ${short(i.title, 60)} is ready to merge into ${i.target ?? 'the target'}`,
        why: 'the integrator runs with --review: a person approves each merge',
        command: `coord approve ${i.task_id}`,
      };
    case 'conflict':
    case 'check_failed':
      return stoppedMergeItem(i, i.state, now);
    case 'blocked':
      return blockedItem(i);
  }
}

function waitingItem(a: AgentRunState): AttentionItem | null {
  if (a.state !== 'waiting') return null;
  return {
    id: `agent_waiting:${a.agent}`,
    kind: 'agent_waiting',
    what: `${a.agent} is waiting for you`,
    why: short(a.reason ?? 'it asks for input or permission', 200),
    since: a.since,
    command: `answer it in its session${a.task_id ? ` (task #${a.task_id})` : ''}`,
    agent: a.agent,
    ...(a.task_id ? { task_id: a.task_id } : {}),
  };
}

function budgetItem(budget: AttentionFacts['budget']): AttentionItem | null {
  if (!budget) return null;
  return {
    id: 'budget_spent:run',
    kind: 'budget_spent',
    what: 'the run has spent its budget',
    why: `${budget.what}: nothing new is launched`,
    since: budget.since,
    command: 'coord run with a larger --budget-tokens / --budget-usd',
  };
}

function failedItem(t: FailedTask): AttentionItem {
  return {
    id: `task_failed:${t.task_id}`,
    kind: 'task_failed',
    what: `#${t.task_id} ${short(t.title, 60)} failed`,
    why: t.last_note ? short(t.last_note, 200) : `${t.agent ?? 'its agent'} gave up on it`,
    since: t.since,
    command: `coord note ${t.task_id} ${q('seen: <what you did about it>')}`,
    task_id: t.task_id,
    ...(t.agent ? { agent: t.agent } : {}),
  };
}

function pausedItem(p: PausedTask): AttentionItem {
  return {
    id: `task_paused:${p.task_id}`,
    kind: 'task_paused',
    what: `#${p.task_id} ${short(p.title, 60)} is paused at a usage limit`,
    why: `it resumes at ${p.until}`,
    since: p.since,
    command: `wait until ${p.until}, or coord cancel ${p.task_id}`,
    task_id: p.task_id,
    ...(p.agent ? { agent: p.agent } : {}),
  };
}

function idleItem(c: HeldClaim, f: AttentionFacts): AttentionItem | null {
  if (f.now - Date.parse(c.last_seen) < f.idle_after_ms) return null;
  return {
    id: `agent_idle:${c.agent}:${c.task_id}`,
    kind: 'agent_idle',
    what: `${c.agent} holds #${c.task_id} ${short(c.title, 60)} but has done nothing since ${c.last_seen}`,
    why: `no activity for ${Math.floor((f.now - Date.parse(c.last_seen)) / 60_000)} min: it may be stuck or gone`,
    since: c.last_seen,
    command: `coord cancel ${c.task_id}`,
    task_id: c.task_id,
    agent: c.agent,
  };
}

function oldHoldItem(h: OldHold, now: number, holdAfter: number): AttentionItem | null {
  if (now - Date.parse(h.since) < holdAfter) return null;
  const where = h.worktree ? ` in ${h.worktree}` : '';
  return {
    id: `hold_old:${h.lock_id}`,
    kind: 'hold_old',
    what: `${short(h.resources.join(' '))} held until merged${where}`,
    why: `changed${h.task_id ? ` for #${h.task_id}` : ''} by ${h.agent} over a day ago and never merged: other agents cannot edit these paths`,
    since: h.since,
    command: `coord unlock ${h.lock_id}`,
    agent: h.agent,
    ...(h.task_id ? { task_id: h.task_id } : {}),
  };
}

/** Everything waiting on a person, most urgent first (then the oldest first). */
export function attentionList(f: AttentionFacts): AttentionItem[] {
  const holdAfter = f.hold_after_ms ?? OLD_HOLD_MS;
  const items = [
    ...(f.agents ?? []).map(waitingItem),
    budgetItem(f.budget),
    ...f.integrations.map((i) => integrationItem(i, f.now)),
    ...f.failed.map(failedItem),
    ...(f.paused ?? []).map(pausedItem),
    ...f.claims.map((c) => idleItem(c, f)),
    ...f.holds.map((h) => oldHoldItem(h, f.now, holdAfter)),
  ].filter((i): i is AttentionItem => Boolean(i));
  const rank = (k: AttentionKind) => ATTENTION_KINDS.indexOf(k);
  return items.sort(
    (a, b) => rank(a.kind) - rank(b.kind) || a.since.localeCompare(b.since) || a.id.localeCompare(b.id),
  );
}
