import type { EventData } from '../events.js';
/** The store's part of SPEC §14: board state about work trees, holds and change records. Each one transaction. */
import type { ReadyOn } from '../model.js';
import type { Usage } from '../runs/supervision.js';

/** SPEC §18: an event of a supervised agent process, appended as it is (one transaction). */
export type AgentEvent = {
  [T in 'agent.launched' | 'agent.state' | 'agent.exited' | 'task.paused']: {
    type: T;
    board: string;
    task_id: string;
    agent: string;
    data: EventData<T>;
  };
}['agent.launched' | 'agent.state' | 'agent.exited' | 'task.paused'];

/** A board's repository and its integration target. */
export interface BoardRepo {
  board: string;
  /** The repository's main work tree (or common git directory): where `git worktree list` runs. */
  repo: string;
  target: string;
  /** SPEC §11: when a blocker counts (coord target --ready-on); `landed` unless the board says otherwise. */
  ready_on?: ReadyOn;
}

/** Where an agent was last seen working on a board. */
export interface AgentTree {
  agent: string;
  worktree: string;
  branch: string | null;
  head: string | null;
  seen_at: string;
}

/** The work tree a claim was made from, and its HEAD then. */
export interface ClaimTree {
  claim_id: string;
  worktree: string;
  head: string | null;
  /**
   * SPEC §14: the work tree's uncommitted paths when the claim began — a path dirty now but not then was
   * touched since. null when not noted (too many to keep, git failed, a claim recorded before coord noted them).
   */
  dirty?: string[] | null;
}

/** A lock taken from a work tree that ended and waits for git to say which of its keys are pending there. */
export interface EndedLock {
  lock_id: string;
  board: string;
  agent: string;
  /** The task it was bound to (or given at a submit), which its hold will be of. */
  task_id: string | null;
  worktree: string;
  resources: string[];
}

/** One hold to narrow: keep only `keep` of its keys; with none, it ends for `reason`. */
export interface HoldTrim {
  lock_id: string;
  keep: string[];
  reason: 'merged' | 'worktree_gone';
}

export interface WorktreeStore {
  /** The board's repository, or null when no agent has told coord of one. */
  boardRepo(board: string): Promise<BoardRepo | null>;
  /** First sight wins (the target is fixed then); `target` given → set it (coord target BRANCH). */
  setBoardRepo(r: BoardRepo, opts: { replaceTarget: boolean; readyOn?: ReadyOn | undefined }): Promise<BoardRepo>;
  /** Record where an agent works (upsert). */
  seenIn(board: string, t: Omit<AgentTree, 'seen_at'>): Promise<void>;
  /** Agents seen working on the board since `since_ms`, newest first. */
  agentTrees(board: string, since_ms: number): Promise<AgentTree[]>;
  /** The claim remembers its work tree and HEAD (only while `claim_id` is the task's current claim). */
  recordClaimTree(task_id: string, tree: ClaimTree): Promise<void>;
  /** The work tree of the task's last claim, if it was recorded. */
  claimTree(task_id: string): Promise<ClaimTree | null>;
  /** A person ends a lock or hold at once, never turning it into a hold. */
  forceReleaseLock(lock_id: string): Promise<{ released: boolean }>;
  /** Ended work-tree locks not settled yet (`trimHolds` makes their pending keys a hold, ends the rest). */
  endedLocks(board?: string): Promise<EndedLock[]>;
  /**
   * Holds whose paths are no longer pending shrink or end (SPEC §14: "ends by itself"); an ended lock keeps
   * only `keep` as a hold, or with none ends for the reason it ended.
   */
  trimHolds(trims: HoldTrim[]): Promise<number>;
  /**
   * SPEC §11: a person merged it — `head`, the task's recorded head, is in `target`. Records the task merged
   * (`how: contained`) and lands it (its dependents may be ready), unless it was merged meanwhile or its
   * queued head is another one. One transaction.
   */
  recordContained(c: { task_id: string; head: string; target: string }): Promise<{ recorded: boolean }>;
  /** SPEC §18: append a supervised agent's event (launched, state, exited, paused) to the board's log. */
  recordAgentEvent(e: AgentEvent): Promise<void>;
  /**
   * SPEC §18 "Budgets": add an exited run's usage to its task's (summed over tries). `run` names the exit
   * (`agent#attempt`): one already added is not added again (`added: false`), nor is one of a task not found.
   */
  addTaskUsage(e: { task_id: string; run: string; usage: Usage }): Promise<{ added: boolean }>;
}
