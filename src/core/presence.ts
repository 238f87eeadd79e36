/**
 * Agents seen recently, in memory. Reads (inbox polls) must never write to the
 * database, so "last seen" for pollers lives here; the durable trail is events.
 */
export class Presence {
  private readonly seen = new Map<string, { board: string; at: number }>();

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
}
