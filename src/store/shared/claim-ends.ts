/**
 * What a won submit, release or cancel does beside the task's row, decided once for both stores: a submit's
 * locks on the change's paths become holds (SPEC §14), completed work with commits enters the integration
 * queue (SPEC §15), and the note is written only when the task changed (SPEC §12). Each store runs the steps
 * in its transaction (claim-ends.ts).
 */

import type { QueueIntegrationCommand } from '../../core/integration/integration-ports.js';
import type { Task } from '../../core/model.js';
import type { Outcome, SubmitCommand, SubmitOutcome } from '../../core/ports.js';
import { integrationOf } from './integration-rows.js';

export interface SubmitSteps {
  hold: { board: string; agent: string; worktree: string; task_id: string; paths: string[] } | null;
  queue: QueueIntegrationCommand | null;
  /** The note's author: the agent that held the claim. */
  author: string | null;
  /** Whether this submit changed the task (a replay writes no second note). */
  changed: boolean;
}

export function submitSteps(out: Outcome<{ task: Task; replayed: boolean }>, cmd: SubmitCommand): SubmitSteps {
  const won = out.ok && !out.replayed;
  return {
    hold: won && cmd.hold ? { ...cmd.hold, board: out.task.board, task_id: cmd.task_id } : null,
    queue: won ? integrationOf(cmd) : null,
    author: out.ok ? out.task.claimed_by : null,
    changed: won,
  };
}

/** The submit's answer: whether it ended a work-tree lock that now waits for git (SPEC §14). */
export const submitted = (
  out: Outcome<{ task: Task; replayed: boolean }>,
  endedLocks: number | undefined,
): SubmitOutcome => (out.ok ? { ...out, ended_locks: (endedLocks ?? 0) > 0 } : out);

/** Whether a cancel would change the task (a second cancel writes no second note). */
export const isOpenState = (state: string | undefined): boolean => state === 'queued' || state === 'claimed';
