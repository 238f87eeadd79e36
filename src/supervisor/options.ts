/** What `coord run` (and `coord serve --run`) tells the supervisor, and what it keeps per running agent. */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { HeadlessProfile } from '../clients/profile.js';
import type { ClaimGrant } from '../core/model.js';
import { type AgentRun, type AgentSlots, type Budget, branchOf, type Usage } from '../core/runs/supervision.js';
import type { AgentProcess } from './agent-process.js';
import type { SupervisorBoard } from './board.js';

/** How the agents' `coord mcp` and hooks are started: this coord, its state directory. */
export interface CoordLaunch {
  node: string;
  bin: string;
  hookBin: string;
  stateArgs: string[];
  /**
   * The daemon's URL and hook key, for a client whose headless hooks can post to it (`type: http`, SPEC §10):
   * no process per shell call. Absent: command hooks.
   */
  hookSite?: { url(client: string, event: string): string; key: string } | undefined;
}

export interface SupervisorOptions {
  board: string;
  /** The main work tree of the repository. */
  repo: string;
  /** The repository's git directory (`<repo>/.git`). */
  commonDir: string;
  target: string;
  agents: AgentSlots[];
  profiles: Record<string, HeadlessProfile>;
  once: boolean;
  /** Where work trees go: default `<repo>.worktrees`. */
  worktreesDir?: string | undefined;
  setup?: string | undefined;
  setupTimeoutS?: number;
  retries: number;
  backoffMs: number;
  taskTimeoutS: number;
  maxTurns?: number | undefined;
  budget: Budget;
  pauseAfterS: number;
  graceMs: number;
  /** `--permission-mode`: one mode for every client, or per client (`claude=acceptEdits,codex=danger-full-access`). */
  permissionMode?: Record<string, string> | undefined;
  keepWorktrees: boolean;
  leaseS: number;
  coord: CoordLaunch;
  /** Where each launch's own files go (settings a client is pointed at): `<state>/run`. */
  scratchDir: string;
  /** The environment agents start from (the supervisor's own). */
  env: NodeJS.ProcessEnv;
  holder: string;
  log(line: string): void;
  /** With --integrate: whether the integrator may still make a task ready (keeps --once going). */
  integrating?: (() => Promise<boolean>) | undefined;
}

/** One running try of a task. */
export interface Live {
  run: AgentRun;
  claimId: string;
  proc: AgentProcess | null;
  portLock: string | null;
  port: number | null;
  session: string | null;
  usage: Usage | null;
  turns: number;
  resultText: string | null;
  /** Tool calls the client's permission mode refused (SPEC §18), for the log and the task's note. */
  refused: string[];
  /** Set when the supervisor ended it: stop (release), pause (hold), timeout (a failed try). */
  endedBy: 'stop' | 'pause' | 'timeout' | null;
  pausedUntil: number | null;
  /** The heartbeat that told the claim its work tree. */
  told: Promise<unknown>;
  /** Its submit has been logged (when the integrator merged it before the process ended). */
  announced: boolean;
}

/** A task released for another try, by a new agent, once its backoff has passed. */
export interface Retry {
  task_id: string;
  client: string;
  agent: string;
  attempt: number;
  at: number;
  left: string | null;
}

/** coord's variables of one agent (SPEC §18): who it is, its claim, its task, work tree and port. */
export const coordEnv = (l: Live, board: string): Record<string, string> => ({
  COORD_AGENT: l.run.agent,
  COORD_BOARD: board,
  COORD_CLAIM: `${l.run.task_id}:${l.claimId}`,
  COORD_TASK: l.run.task_id,
  COORD_WORKTREE: l.run.worktree,
  ...(l.port === null ? {} : { COORD_PORT: String(l.port) }),
});

/** A try about to start: its claim taken, nothing made yet. */
export function newLive(
  o: SupervisorOptions,
  t: { client: string; agent: string; grant: ClaimGrant; attempt: number; worktree: string },
): Live {
  const now = new Date().toISOString();
  const run: AgentRun = {
    agent: t.agent,
    board: o.board,
    client: t.client,
    pid: null,
    task_id: t.grant.task.id,
    worktree: t.worktree,
    branch: branchOf(t.grant.task),
    state: 'starting',
    since: now,
    started_at: now,
    usage: null,
    paused_until: null,
    attempt: t.attempt,
    supervisor: o.holder,
    exit_code: null,
    submitted: false,
  };
  return {
    run,
    claimId: t.grant.claim_id,
    proc: null,
    portLock: null,
    port: null,
    session: null,
    usage: null,
    turns: 0,
    resultText: null,
    refused: [],
    endedBy: null,
    pausedUntil: null,
    told: Promise.resolve(),
    announced: false,
  };
}

/** SPEC §18 "Supervised": the claim's lease (and the port's) renewed while the try lives; cleared by the caller. */
export const keepLeaseOf = (board: SupervisorBoard, o: SupervisorOptions, l: Live): NodeJS.Timeout =>
  setInterval(
    () => {
      void board
        .heartbeat({ task_id: l.run.task_id, claim_id: l.claimId, lease_s: o.leaseS })
        .catch((e) => o.log(`#${l.run.task_id} lease: ${(e as Error).message}`));
      if (l.portLock) void board.renewLock({ lock_id: l.portLock, lease_s: o.leaseS }).catch(() => 0);
    },
    Math.max(1000, (o.leaseS * 1000) / 3),
  );

/** `<repo>.worktrees` beside a repository given by any path inside it. */
export const defaultWorktrees = (repo: string): string =>
  join(dirname(resolve(repo)), `${basename(resolve(repo))}.worktrees`);

export const realDir = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};
