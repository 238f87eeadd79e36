/**
 * SPEC §18 "Endings": what a try of a task ends in. A submit leaves the task to its change record and the
 * queue (its work tree to be removed once merged); an exit without one notes the work left, releases the task
 * and tries it again with a new agent (with backoff) until the retries are spent, then fails it with the
 * client's last lines. Stopping releases with the lost-work note.
 */
import { afterExit, launchName } from '../core/runs/supervision.js';
import type { SupervisorBoard } from './board.js';
import type { Live, Retry, SupervisorOptions } from './options.js';
import { PERMISSION_HINT } from './signals.js';
import { removableTree, removeTree } from './worktree.js';

export interface Ending {
  submitted: boolean;
  code: number | null;
  lines: string[];
  why: string | null;
  /** The agent gave its task back itself (release_task): nothing to release. */
  releasedByAgent?: boolean;
}

/** What the supervisor keeps of an ending: a retry to schedule, a work tree to remove once merged. */
export interface Settled {
  retry: Retry | null;
  removeOnceMerged: string | null;
}

const tries = (n: number) => `${n} ${n === 1 ? 'try' : 'tries'}`;

export async function settle(
  board: SupervisorBoard,
  o: SupervisorOptions,
  l: Live,
  e: Ending,
  stopping: boolean,
): Promise<Settled> {
  const { run } = l;
  const none: Settled = { retry: null, removeOnceMerged: null };
  await l.told;
  if (l.portLock) await board.unlock(l.portLock).catch(() => 0);
  if (e.submitted) {
    o.log(`#${run.task_id} ${run.agent} ${l.announced ? 'ended' : 'submitted'} (exit ${e.code ?? '-'})`);
    return { retry: null, removeOnceMerged: o.keepWorktrees ? null : run.worktree };
  }
  const how = e.why ?? `exited with ${e.code ?? 'a signal'} without submitting`;
  const refused =
    l.refused.length > 0 ? [`Refused by its permission mode: ${l.refused.join(', ')} (${PERMISSION_HINT}).`] : [];
  const tail = [...refused, ...(l.resultText ? [l.resultText, ...e.lines] : e.lines).slice(-10)].join('\n');
  if (stopping || l.endedBy === 'stop') {
    if (!e.releasedByAgent) {
      await board
        .release({ task_id: run.task_id, claim_id: l.claimId, note: `coord run stopped ${run.agent} (${how})` })
        .catch(() => 0);
    }
    o.log(`#${run.task_id} ${run.agent} stopped; task released`);
    return none;
  }
  const next = afterExit({
    submitted: false,
    tries: run.attempt,
    retries: o.retries,
    ranMs: l.proc ? Date.now() - l.proc.startedAt : 0,
    baseBackoffMs: o.backoffMs,
  });
  if (next.kind === 'retry') {
    const agent = launchName(run.client);
    const note = `${run.agent} ${how}; coord run tries again with ${agent}${tail ? `. Its last lines:\n${tail}` : ''}`;
    if (!e.releasedByAgent) {
      await board.release({ task_id: run.task_id, claim_id: l.claimId, to: agent, note: clipNote(note) });
    }
    o.log(
      `#${run.task_id} ${run.agent} ${how}: retry ${run.attempt}/${o.retries} in ${Math.round(next.delayMs / 1000)} s`,
    );
    const at = Date.now() + next.delayMs;
    const retry = {
      task_id: run.task_id,
      client: run.client,
      agent,
      attempt: run.attempt + 1,
      at,
      left: `${run.agent} ${how}`,
    };
    return { retry, removeOnceMerged: null };
  }
  const note = `coord run: ${run.agent} ${how}, after ${tries(run.attempt)}; the task failed.${tail ? ` Its last lines:\n${tail}` : ''}`;
  if (e.releasedByAgent) {
    // The agent gave the task back itself: claim it once more only to fail it.
    const g = await board.claimTask({ task_id: run.task_id, agent: run.agent, lease_s: o.leaseS }).catch(() => null);
    if (g) await board.fail({ task_id: run.task_id, claim_id: g.claim_id, note: clipNote(note) });
  } else {
    await board.fail({ task_id: run.task_id, claim_id: l.claimId, note: clipNote(note) });
  }
  o.log(`#${run.task_id} ${run.agent} ${how}: failed after ${tries(run.attempt)}`);
  return none;
}

/** A note is at most 8 KiB: the tail of a long one is what matters. */
const clipNote = (s: string): string => (Buffer.byteLength(s) > 8000 ? `…${s.slice(-7000)}` : s);

/**
 * SPEC §18: a submitted task's work tree goes once its work is in the target (never one with unmerged work).
 * `toRemove` maps task ids to their work trees; each one settled (removed, or kept with work nobody merged) leaves it.
 */
export async function removeMerged(
  board: SupervisorBoard,
  o: SupervisorOptions,
  toRemove: Map<string, string>,
): Promise<void> {
  for (const [taskId, tree] of toRemove) {
    const task = await board.showTask(taskId).catch(() => null);
    if (task?.change?.merged_as === undefined) continue;
    if (await removableTree(tree, o.target)) {
      await removeTree(o.repo, tree).catch((e) => o.log(`removing ${tree}: ${(e as Error).message}`));
    }
    toRemove.delete(taskId);
  }
}
