/**
 * SPEC §19: what needs a person. `list_attention` gathers the facts the store already has (the integration
 * queue, follow-ups and their claims, failed tasks and their notes, claims and their agents' last activity,
 * change holds) and what the daemon holds in memory (agents whose client said they wait), and lets the pure
 * rules of core/attention/attention.ts make the list. `agent_waiting` is what an agent's notification hook tells.
 */
import {
  type AgentRunState,
  type AttentionFacts,
  attentionList,
  type FailedTask,
  type HeldClaim,
  IDLE_AFTER_MS,
  type StoppedIntegration,
} from '../attention/attention.js';
import {
  AgentWaitingInput,
  AgentWaitingOutput,
  AttentionInput,
  AttentionOutput,
} from '../attention/attention-schemas.js';
import { DEFAULT_BOARD } from '../model.js';
import type { Ctx } from '../operation.js';
import { defineOperation } from '../operation.js';

/** How many rows of each kind are read: the list is for a person, not an export. */
const MAX_ROWS = 200;
const HISTORY_MS = 7 * 24 * 3600_000;

const STOPPED: ReadonlySet<string> = new Set(['awaiting_review', 'conflict', 'check_failed', 'blocked']);

async function stoppedIntegrations(ctx: Ctx, board: string | undefined): Promise<StoppedIntegration[]> {
  const boards = board ? [board] : await ctx.store.integrationBoards();
  const out: StoppedIntegration[] = [];
  for (const b of boards) {
    for (const q of await ctx.store.integrationQueue(b)) {
      // An approved merge waits for the integrator, not for a person.
      if (!STOPPED.has(q.state) || (q.state === 'awaiting_review' && q.approved)) continue;
      const f = q.followup ? await ctx.store.getTask(q.followup) : null;
      out.push({
        task_id: q.task_id,
        title: q.title,
        agent: q.agent,
        state: q.state as StoppedIntegration['state'],
        reason: q.reason,
        since: q.updated_at ?? q.queued_at,
        target: q.target,
        followup: f ? { id: f.id, state: f.state, claimed_by: f.claimed_by, lease_until: f.lease_until } : undefined,
      });
    }
  }
  return out;
}

/** Failed tasks nobody but their claimant (or coord) has written a note on since they failed. */
async function unansweredFailures(ctx: Ctx, board: string | undefined): Promise<FailedTask[]> {
  const { tasks } = await ctx.store.listTasks({ board, state: 'failed', limit: MAX_ROWS });
  const out: FailedTask[] = [];
  for (const t of tasks) {
    const { notes } = await ctx.store.taskNotes(t.id, 20);
    const failedAt = t.updated_at;
    const answered = notes.some((n) => n.agent !== t.claimed_by && n.agent !== 'coord' && n.at >= failedAt);
    if (answered) continue;
    out.push({ task_id: t.id, title: t.title, agent: t.claimed_by, since: failedAt, last_note: notes.at(-1)?.text });
  }
  return out;
}

/** Live claims with when their agent was last seen: its last event, its last call (presence), the claim. */
async function claimsWithActivity(ctx: Ctx, board: string | undefined): Promise<HeldClaim[]> {
  const { tasks } = await ctx.store.listTasks({ board, state: 'claimed', limit: MAX_ROWS });
  if (tasks.length === 0) return [];
  const act = await ctx.store.activity({ board, since_ms: HISTORY_MS });
  const last = new Map<string, string>();
  const saw = (agent: string, at: string) => {
    if (at > (last.get(agent) ?? '')) last.set(agent, at);
  };
  for (const a of act.agents) saw(a.name, a.last_seen);
  for (const p of ctx.presence.list(board)) saw(p.name, new Date(p.at).toISOString());
  return tasks.flatMap((t) => {
    if (!t.claimed_by) return [];
    const seen = last.get(t.claimed_by) ?? '';
    return [
      {
        task_id: t.id,
        title: t.title,
        agent: t.claimed_by,
        last_seen: seen.localeCompare(t.updated_at) > 0 ? seen : t.updated_at,
      },
    ];
  });
}

/** The facts the list is made of, for one board (or every board). */
export async function attentionFacts(ctx: Ctx, board: string | undefined): Promise<AttentionFacts> {
  const [integrations, failed, claims, locks] = await Promise.all([
    stoppedIntegrations(ctx, board),
    unansweredFailures(ctx, board),
    claimsWithActivity(ctx, board),
    ctx.store.listLocks(board),
  ]);
  const agents: AgentRunState[] = ctx.presence.waiting(board).map((w) => ({
    agent: w.agent,
    state: 'waiting',
    reason: w.message,
    since: new Date(w.at).toISOString(),
    task_id: w.task_id,
  }));
  return {
    now: ctx.clock.now(),
    idle_after_ms: ctx.idle_after_ms ?? IDLE_AFTER_MS,
    integrations,
    failed,
    claims,
    holds: locks.flatMap((l) =>
      l.hold
        ? [
            {
              lock_id: l.lock_id,
              agent: l.agent,
              resources: l.resources,
              since: l.hold.since,
              task_id: l.task_id,
              worktree: l.worktree,
            },
          ]
        : [],
    ),
    agents,
  };
}

export const listAttention = defineOperation({
  name: 'list_attention',
  summary:
    'What waits on a person, most urgent first: each with what, why, since when and the command that resolves it.',
  input: AttentionInput,
  output: AttentionOutput,
  async run(ctx, input) {
    return { items: attentionList(await attentionFacts(ctx, input.board)) };
  },
});

export const agentWaiting = defineOperation({
  name: 'agent_waiting',
  summary: "An agent's client says it waits for a person (a permission prompt, a question), or that it goes on.",
  input: AgentWaitingInput,
  output: AgentWaitingOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const now = ctx.clock.now();
    ctx.presence.touch(input.agent, board, now);
    return {
      waiting: ctx.presence.wait({
        agent: input.agent,
        board,
        message: input.waiting,
        at: now,
        task_id: input.task_id,
      }),
    };
  },
});
