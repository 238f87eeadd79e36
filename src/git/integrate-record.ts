/**
 * What the integrator records for each result (SPEC §15): the record's state and reason, the note the
 * task's history shows, and the follow-up task that sends a conflict or a failed check back to its agent.
 */
import type { QueuedIntegration } from '../core/integration/integration.js';
import type { MergeOutcome } from './integrate-merge.js';
import type { RecordInput } from './integrator-port.js';

const short = (sha: string) => sha.slice(0, 7);

/** The merge commit's message: the merge engine finds its own merge of a task by it after a crash. */
export const mergeMessage = (task_id: string, title: string) => `coord: integrate #${task_id} ${title}`;

/** Where the record goes: the board, the slot it is recorded under, and the target the turn merged into. */
export interface RecordAt {
  board: string;
  slot_id: string;
  target: string;
}

/** The record of one result of task `q` at `head`. */
export function recordInput(at: RecordAt, q: QueuedIntegration, head: string, o: MergeOutcome): RecordInput {
  const base = { ...at, task_id: q.task_id, head };
  switch (o.state) {
    case 'merged':
      return { ...base, state: 'merged', commit: o.commit, how: o.how, ...(o.flaky ? { flaky: true } : {}) };
    case 'ready':
      return {
        ...base,
        state: 'awaiting_review',
        commit: o.commit,
        reason: `ready to merge as ${short(o.commit)}; approve with coord approve ${q.task_id}`,
      };
    case 'blocked':
      return { ...base, state: 'blocked', reason: o.reason, note: o.reason };
    case 'conflict':
      return conflictInput(base, q, head, o);
    case 'check_failed':
      return checkFailedInput(base, q, o);
  }
}

type Base = RecordAt & { task_id: string; head: string };

/** " in <work tree> on branch <branch>", as far as the change record knows them. */
const whereOf = (q: QueuedIntegration) =>
  `${q.worktree ? ` in ${q.worktree}` : ''}${q.branch ? ` on branch ${q.branch}` : ''}`;

function conflictInput(
  base: Base,
  q: QueuedIntegration,
  head: string,
  o: Extract<MergeOutcome, { state: 'conflict' }>,
): RecordInput {
  const t = base.target;
  const paths = o.paths.join(', ');
  return {
    ...base,
    state: 'conflict',
    reason: paths,
    note: `conflicts with ${t} in ${paths} (target at ${short(o.old)}, head ${short(head)}); a follow-up task went to ${q.agent}`,
    followup: {
      for: q.agent,
      title: `resolve the conflicts of #${q.task_id} with ${t}: ${paths}`.slice(0, 500),
      body: [
        `#${q.task_id} "${q.title}" conflicts with ${t} in: ${paths}.`,
        `In your work tree${whereOf(q)}: merge ${t} (git merge ${t}), resolve those paths, commit.`,
        `Then submit this task: coord merges #${q.task_id} again with the head your submit records (never unsubmitted commits).`,
      ].join('\n'),
    },
  };
}

function checkFailedInput(
  base: Base,
  q: QueuedIntegration,
  o: Extract<MergeOutcome, { state: 'check_failed' }>,
): RecordInput {
  const t = base.target;
  return {
    ...base,
    state: 'check_failed',
    commit: o.commit,
    reason: o.reason,
    note: `${o.reason} on the merge with ${t} (${short(o.commit)}):\n${o.output}`.slice(0, 16_000),
    followup: {
      for: q.agent,
      title: `fix the check of #${q.task_id} on ${t}: ${o.reason}`.slice(0, 500),
      body: [
        `The check failed on #${q.task_id} "${q.title}" merged with ${t}: ${o.reason}.`,
        `Fix it in your work tree${whereOf(q)}, commit and submit this task; coord tries again with the head your submit records.`,
        'The last lines of its output:',
        o.output,
      ]
        .join('\n')
        .slice(0, 16_000),
    },
  };
}
