/**
 * The dependency graph of SPEC §11 as pure functions: edges point from a task
 * to the tasks it is blocked by. Stores load the part of the graph an edge
 * change can reach and ask here whether it closes a cycle; plans are checked
 * and ordered here before a store sees them.
 */

/** Blockers of each task id (only the part of the graph that matters). */
export type Edges = ReadonlyMap<string, readonly string[]>;

/**
 * A path `from → … → to` following blocked_by edges, or null. Adding the edge
 * `to blocked_by from` closes a cycle exactly when such a path exists.
 */
export function findPath(edges: Edges, from: string, to: string): string[] | null {
  const back = new Map<string, string>();
  const todo = [from];
  const seen = new Set([from]);
  for (let i = 0; i < todo.length; i++) {
    const id = todo[i]!;
    if (id === to) {
      const path = [id];
      for (let p = back.get(id); p !== undefined; p = back.get(p)) path.push(p);
      return path.reverse();
    }
    for (const next of edges.get(id) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      back.set(next, id);
      todo.push(next);
    }
  }
  return null;
}

/**
 * The cycle `task → blocker → … → task` that adding these blockers to `task`
 * would close (named from the task back to itself), or null.
 */
export function cycleThrough(edges: Edges, task: string, blockers: readonly string[]): string[] | null {
  for (const b of blockers) {
    const path = b === task ? [task] : findPath(edges, b, task);
    if (path) return [task, ...path];
  }
  return null;
}

/**
 * Orders nodes so each comes after every node it names (Kahn), or returns a
 * cycle among them (named from a node back to itself). `deps(n)` lists the
 * nodes `n` needs first; names outside `nodes` are ignored.
 */
export function topoOrder(
  nodes: readonly string[],
  deps: (n: string) => readonly string[],
): { order: string[] } | { cycle: string[] } {
  const inside = new Set(nodes);
  const needs = new Map(nodes.map((n) => [n, [...new Set(deps(n).filter((d) => inside.has(d)))]]));
  const waiting = new Map(nodes.map((n) => [n, needs.get(n)!.length]));
  const users = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const [n, ds] of needs) for (const d of ds) users.get(d)!.push(n);
  const order = nodes.filter((n) => waiting.get(n) === 0);
  for (let i = 0; i < order.length; i++) {
    for (const u of users.get(order[i]!)!) {
      const left = waiting.get(u)! - 1;
      waiting.set(u, left);
      if (left === 0) order.push(u);
    }
  }
  if (order.length === nodes.length) return { order };
  // Every node left waits for another node left: walk back from one until a node repeats.
  const left = nodes.filter((n) => waiting.get(n)! > 0);
  const walk: string[] = [];
  const at = new Map<string, number>();
  for (let n: string | undefined = left[0]; n !== undefined; ) {
    const seenAt = at.get(n);
    if (seenAt !== undefined) return { cycle: [...walk.slice(seenAt), n] };
    at.set(n, walk.length);
    walk.push(n);
    n = needs.get(n)!.find((d) => waiting.get(d)! > 0);
  }
  return { cycle: left };
}
