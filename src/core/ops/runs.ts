/**
 * SPEC §18 "Supervised": the agent processes supervisors started, as they report them — kept in the daemon's
 * memory (a process lives no longer than its supervisor, which reports it again after a daemon restart), with
 * each change appended to the board's log as an event (`agent.launched`, `agent.state`, `agent.exited`,
 * `task.paused`). `GET /v1/runs` lists them as plain data: who, `top`, the dashboard and the attention list
 * read the same records.
 */
import { z } from 'zod';
import { DEFAULT_BOARD } from '../model.js';
import { defineOperation } from '../operation.js';
import { type AgentRun, AgentRunSchema } from '../runs/supervision.js';
import { BoardName } from '../schemas.js';
import type { AgentEvent } from '../worktrees/worktree-ports.js';

/** Runs that ended are listed this long after, then forgotten. */
const EXITED_KEPT_MS = 3600_000;

const PublicRun = AgentRunSchema.omit({ claim_id: true });

/** The events a new report means, against what was known of the run before. */
export function runEvents(before: AgentRun | undefined, run: AgentRun): AgentEvent[] {
  const at = { board: run.board, task_id: run.task_id, agent: run.agent };
  const out: AgentEvent[] = [];
  if (run.pid !== null && (before?.pid ?? null) !== run.pid) {
    out.push({
      ...at,
      type: 'agent.launched',
      data: {
        client: run.client,
        pid: run.pid,
        worktree: run.worktree,
        branch: run.branch,
        attempt: run.attempt,
        supervisor: run.supervisor,
      },
    });
  }
  if (run.state === 'exited') {
    if (before?.state !== 'exited') {
      out.push({
        ...at,
        type: 'agent.exited',
        data: { code: run.exit_code, submitted: run.submitted, usage: run.usage },
      });
    }
    return out;
  }
  if (before && before.state !== run.state) out.push({ ...at, type: 'agent.state', data: { state: run.state } });
  if (run.state === 'paused' && run.paused_until && before?.paused_until !== run.paused_until) {
    out.push({ ...at, type: 'task.paused', data: { until: run.paused_until } });
  }
  return out;
}

export const reportRun = defineOperation({
  name: 'report_run',
  summary: 'SPEC §18: a supervisor reports an agent process it started (or a change of its state).',
  input: PublicRun,
  output: z.object({ run: PublicRun }),
  async run(ctx, input) {
    const runs = ctx.presence.runs;
    const before = runs.get(input.agent);
    const now = ctx.clock.now();
    runs.set(input.agent, { ...input, at: now });
    // SPEC §10: an agent about to start in its work tree — the daemon looks at the tree now, so a shell command whose
    // client sends no look before it (coord run's Claude Code) is compared with this look, or the last command's.
    if (input.state === 'starting') ctx.shell?.launched(ctx, input.worktree);
    for (const [name, r] of runs) if (r.state === 'exited' && now - r.at > EXITED_KEPT_MS) runs.delete(name);
    for (const e of runEvents(before, input)) await ctx.store.recordAgentEvent(e);
    // SPEC §18 "Budgets": an exit's usage counts on the task, once per agent and try (the store keys it, so a
    // report repeated — or made again to a restarted daemon — adds nothing).
    if (input.state === 'exited' && input.usage) {
      await ctx.store.addTaskUsage({
        task_id: input.task_id,
        run: `${input.agent}#${input.attempt}`,
        usage: input.usage,
      });
    }
    ctx.presence.touch(input.agent, input.board, now);
    return { run: input };
  },
});

export const listRuns = defineOperation({
  name: 'list_runs',
  summary: 'SPEC §18: the agent processes supervisors started — client, pid, task, work tree, state, since, usage.',
  input: z.object({ board: BoardName.optional() }),
  output: z.object({ runs: z.array(PublicRun) }),
  async run(ctx, input) {
    const board = input.board;
    const runs = [...ctx.presence.runs.values()]
      .filter((r) => board === undefined || r.board === (board ?? DEFAULT_BOARD))
      .map(({ at: _at, claim_id: _c, ...r }) => r)
      .sort((a, b) => a.started_at.localeCompare(b.started_at));
    return { runs };
  },
});
