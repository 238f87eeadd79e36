/**
 * What one daemon keeps in memory and not in the database. The server makes one at start and hands it to every
 * operation as `ctx.presence`: core's modules keep no state of their own (test/architecture/core-state.test.ts).
 *
 * Agents seen recently, in memory. Reads (inbox polls) must never write to the
 * database, so "last seen" for pollers lives here; the durable trail is events.
 *
 * Also in memory: agents whose client said (its notification hook, SPEC §19) that they wait for a person —
 * a permission prompt, a question. Each is cleared when the client says the agent goes on (its next prompt,
 * tool call or turn's end); a daemon restart forgets them (the client says it again at its next prompt).
 */
import type { PendingSnapshot } from './ops/pending-elsewhere.js';
import type { AgentRun } from './runs/supervision.js';

export interface Waiting {
  agent: string;
  board: string;
  message: string;
  at: number;
  task_id?: string | undefined;
}

export class Presence {
  private readonly seen = new Map<string, { board: string; at: number }>();
  private readonly waits = new Map<string, Waiting>();
  /** SPEC §18: the agent processes supervisors reported, by agent name (ops/runs.ts). */
  readonly runs = new Map<string, AgentRun & { at: number }>();
  /** SPEC §14: what each work tree of a board's repository would bring into its target, by board (ops/pending-elsewhere.ts). */
  readonly pending = new Map<string, PendingSnapshot>();
  /** SPEC §14: the work tree, branch and head last recorded per board and agent, so only a move writes (ops/worktree-context.ts). */
  readonly trees = new Map<string, string>();

  touch(agent: string | undefined, board: string, at: number): void {
    if (agent) this.seen.set(`${board}\u0000${agent}`, { board, at });
  }

  list(board: string | undefined): { name: string; board: string; at: number }[] {
    const out: { name: string; board: string; at: number }[] = [];
    for (const [key, v] of this.seen) {
      if (board === undefined || v.board === board) out.push({ name: key.split('\u0000')[1] ?? '', ...v });
    }
    return out;
  }

  /** The agent waits for a person (null: it goes on). Returns whether it now waits. */
  wait(w: Omit<Waiting, 'message'> & { message: string | null }): boolean {
    const key = `${w.board}\u0000${w.agent}`;
    if (w.message === null) {
      // Going on is the agent's, whichever board its hook named (a hook and the client's own http hook may
      // read the board differently).
      for (const [k, v] of this.waits) if (v.agent === w.agent) this.waits.delete(k);
      return false;
    }
    // The same wait told again keeps its first time: `since` is when the agent started waiting.
    const was = this.waits.get(key);
    this.waits.set(key, { ...w, message: w.message, at: was && was.message === w.message ? was.at : w.at });
    return true;
  }

  waiting(board: string | undefined): Waiting[] {
    return [...this.waits.values()].filter((w) => board === undefined || w.board === board);
  }
}
