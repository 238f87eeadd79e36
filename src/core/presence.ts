/**
 * Agents seen recently, in memory. Reads (inbox polls) must never write to the
 * database, so "last seen" for pollers lives here; the durable trail is events.
 *
 * Also in memory: agents whose client said (its notification hook, SPEC §19) that they wait for a person —
 * a permission prompt, a question. Each is cleared when the client says the agent goes on (its next prompt,
 * tool call or turn's end); a daemon restart forgets them (the client says it again at its next prompt).
 */
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
