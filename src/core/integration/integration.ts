/**
 * The integration queue (SPEC §15), as words and pure rules over data: which task is merged next, when a
 * task that stopped is tried again, and the lines an agent reads about it. git is an edge (src/git/); the
 * integrator there asks these functions and records what git answered through the store.
 *
 * integration  — where a completed task's commits stand with the target branch:
 *   pending          completed with commits, waiting for the integrator
 *   awaiting_review  merge ready; waits for a person's `coord approve` (integrate --review)
 *   merged           in the target (`commit`: the target's new tip, or the head already there)
 *   conflict         merging conflicts (`reason` names the paths; a follow-up task is the agent's)
 *   check_failed     `--check CMD` failed on the merged commit (the output's tail is a note)
 *   blocked          nothing could be done now (a dirty checked-out target, a deleted branch, …)
 * slot         — one board's exclusive, fenced right to integrate, for a lease: a crashed integrator's lapses.
 */

/** The events that may give an integrator work: a submit with commits, a queue change, a merge, an approval. */
export const WAKES_INTEGRATOR: ReadonlySet<string> = new Set([
  'task.completed',
  'task.integration',
  'task.integrated',
  'task.approved',
]);

export const INTEGRATION_STATES = [
  'none',
  'pending',
  'awaiting_review',
  'merged',
  'conflict',
  'check_failed',
  'blocked',
] as const;
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

/** What task JSON carries: `integration: {state, reason?, commit?}`. */
export interface Integration {
  state: IntegrationState;
  reason?: string | undefined;
  commit?: string | undefined;
  /** The branch it was merged into (or tried against). */
  target?: string | undefined;
  /** The follow-up task of a conflict or failed check. */
  followup?: string | undefined;
  /** merged: its check passed only on a retry. */
  flaky?: boolean | undefined;
  /** pending, awaiting_review: a person approved it; it is merged at the integrator's next turn. */
  approved?: boolean | undefined;
}

/** The part of a stored integration that task JSON shows: `{state, reason?, commit?}`. */
export const shownIntegration = (i: Integration): Integration => ({
  state: i.state,
  ...(i.reason ? { reason: i.reason } : {}),
  ...(i.commit ? { commit: i.commit } : {}),
  ...(i.target ? { target: i.target } : {}),
  ...(i.followup && (i.state === 'conflict' || i.state === 'check_failed') ? { followup: i.followup } : {}),
  ...(i.flaky && i.state === 'merged' ? { flaky: true } : {}),
  ...(i.approved && (i.state === 'pending' || i.state === 'awaiting_review') ? { approved: true } : {}),
});

/** One task of a board's queue, as the integrator reads it (every state but merged). */
export interface QueuedIntegration {
  task_id: string;
  board: string;
  title: string;
  /** Who did the work: the follow-up of a conflict or failed check is theirs. */
  agent: string;
  state: Exclude<IntegrationState, 'none' | 'merged'>;
  reason: string | null;
  /** The work tree the change was made in (from the change record): where git runs if no repo is given. */
  worktree: string | null;
  branch: string | null;
  /** The head to merge: the change record's, or the one a follow-up's (or a new) submit recorded. */
  head: string;
  /** The head last tried: a conflict or failed check is tried again once a submit records another head. */
  tried_head: string | null;
  approved: boolean;
  blocked_by: string[];
  /** The task's priority: lower is merged first (after dependency order). Absent from an older daemon. */
  priority?: number | undefined;
  /** Completion order. */
  queued_at: string;
  /** When its state last changed (SPEC §19: since when a stopped task has waited). */
  updated_at?: string | undefined;
  /** The branch it was last tried against. */
  target?: string | undefined;
  /** The follow-up task of a conflict or failed check. */
  followup?: string | undefined;
}

/** Default lease of the integration slot; the integrator renews it while it works. */
export const SLOT_LEASE_MS = 60_000;

/**
 * The tasks to try now, in the order to try them (SPEC §15 "Order"): a task waits while one of its
 * blockers is still in the queue unmerged; otherwise by priority (lower first), then completion order. `pending` tasks are taken;
 * `awaiting_review` ones once approved (or by an integrator not asking for review); `blocked` ones every
 * turn (their reason may be gone); `conflict`/`check_failed` ones only when `moved(task)` says a
 * submit recorded a head other than the one last tried.
 */
export function integrationOrder(
  queue: QueuedIntegration[],
  moved: (q: QueuedIntegration) => boolean,
  review: boolean,
): QueuedIntegration[] {
  const open = new Set(queue.map((q) => q.task_id));
  // The queue comes in completion order; a stable sort keeps it within one priority.
  const byPriority = [...queue].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  return byPriority.filter((q) => {
    if (q.blocked_by.some((id) => open.has(id))) return false;
    if (q.state === 'pending' || q.state === 'blocked') return true;
    if (q.state === 'awaiting_review') return q.approved || !review;
    return moved(q);
  });
}

const short = (sha: string | undefined | null) => (sha ?? '').slice(0, 7);

/** The line an agent reads about its task's integration (inbox, show_task), or null when there is no news. */
export function integrationLine(task_id: string, i: Integration): string | null {
  const t = `#${task_id}`;
  const target = i.target ?? 'the target';
  const followup = i.followup;
  switch (i.state) {
    case 'merged':
      return `${t} merged into ${target} as ${short(i.commit)}`;
    case 'conflict':
      return `${t} conflicts with ${target}${i.reason ? ` in ${i.reason}` : ''}${followup ? `: see task #${followup}` : ''}`;
    case 'check_failed':
      return `${t} failed the check on ${target}${followup ? `: see task #${followup}` : ''}`;
    case 'blocked':
      return `${t} cannot be merged into ${target} yet: ${i.reason ?? 'blocked'}`;
    case 'awaiting_review':
      return `${t} is ready to merge into ${target}, waiting for approval`;
    case 'pending':
      return `${t} waits to be merged into ${target}`;
    default:
      return null;
  }
}

/** How an integrator batches its checks (SPEC §15): `--window N`, `--jobs J`, `--check-retries K`, `--lanes`, `--scope GLOB`. */
export interface CheckPlan {
  window: number;
  /** Checks of one window at once: `--jobs`, else N. */
  jobs: number;
  retries: number;
  /** `--lanes`: tasks changing no common path (nor paths under one scope) are checked at the same time. */
  lanes: boolean;
  /** `--scope GLOB`s: the paths each one matches count as one path for lanes. */
  scopes: string[];
  /** With lanes, `--jobs` as given caps the checks of all lanes at once; null: N per lane, no cap. */
  maxChecks: number | null;
}

/** Reads the plan's flags as given on a command line; throws a sentence for bad input. */
export function checkPlan(flags: {
  window?: string | undefined;
  jobs?: string | undefined;
  checkRetries?: string | undefined;
  lanes?: boolean | undefined;
  scope?: string[] | undefined;
}): CheckPlan {
  const count = (flag: string, raw: string | undefined, fallback: number, min: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > 64)
      throw new Error(`${flag} takes a whole number from ${min} to 64, got ${raw}`);
    return n;
  };
  const window = count('--window', flags.window, 1, 1);
  const scopes = flags.scope ?? [];
  if (scopes.length > 0 && !flags.lanes) throw new Error('--scope goes with --lanes');
  const empty = scopes.find((g) => g.trim() === '' || g.startsWith('/'));
  if (empty !== undefined)
    throw new Error(`--scope takes a glob of repository-relative paths such as 'src/ui/**', got '${empty}'`);
  const jobs = count('--jobs', flags.jobs, window, 1);
  return {
    window,
    jobs,
    retries: count('--check-retries', flags.checkRetries, 0, 0),
    lanes: flags.lanes ?? false,
    scopes,
    maxChecks: flags.lanes && flags.jobs !== undefined ? jobs : null,
  };
}
