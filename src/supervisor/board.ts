/**
 * What the supervisor needs of the board: the daemon's operations, over HTTP from `coord run`, in process
 * from `coord serve --run` — so this folder imports neither the client nor the server.
 */
import type { ClaimGrant, Task } from '../core/model.js';
import type { AgentRun } from '../core/runs/supervision.js';

export interface SupervisorBoard {
  claimNext(input: { agent: string; board: string; lease_s: number; wait_s?: number }): Promise<ClaimGrant | null>;
  claimTask(input: { task_id: string; agent: string; lease_s: number }): Promise<ClaimGrant>;
  heartbeat(input: {
    task_id: string;
    claim_id: string;
    lease_s: number;
    worktree?: string;
    head?: string;
  }): Promise<unknown>;
  release(input: { task_id: string; claim_id: string; to?: string; note?: string }): Promise<unknown>;
  fail(input: { task_id: string; claim_id: string; note: string }): Promise<unknown>;
  showTask(task_id: string): Promise<Task>;
  reservePort(input: { agent: string; board: string; lease_s: number }): Promise<{ port: number; lock_id: string }>;
  renewLock(input: { lock_id: string; lease_s: number }): Promise<unknown>;
  unlock(lock_id: string): Promise<unknown>;
  /** SPEC §18: each change of an agent process, for `GET /v1/runs`, `who`, `top` and the events. */
  reportRun(run: AgentRun): Promise<unknown>;
}
