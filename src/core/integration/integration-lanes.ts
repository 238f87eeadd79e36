/**
 * Lanes of the integration queue (SPEC §15 `--lanes`, `--scope GLOB`), as a pure rule over data.
 *
 * lane   — tasks of one turn, in integration order, that are checked one after another (or in one
 *          speculative window); different lanes are checked at the same time.
 * key    — what two tasks must share to be in one lane: a path both change, or one `--scope` glob that
 *          matches a path of each (the user groups a folder whose files depend on each other).
 *
 * Tasks sharing a key are in one lane, and so, transitively, is everything sharing a key with any of them:
 * two tasks that change one file are never checked at the same time, and keep their order.
 */

/** A `--scope` glob as a matcher: `*` within a folder name, `**` across folders, `?` one character; `dir/` or a plain `dir` is everything under it. */
export function scopeMatcher(glob: string): (path: string) => boolean {
  if (!/[*?]/.test(glob)) {
    const dir = glob.replace(/\/+$/, '');
    return (p) => p === dir || p.startsWith(`${dir}/`);
  }
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is any number of folders (none included); `**` alone, anything.
      if (glob[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A glob naming folders covers what is in them: `src/*` groups src/a/b.ts with src/a/c.ts.
  const matcher = new RegExp(`^${re}(?:/.*)?$`);
  return (p) => matcher.test(p);
}

/** The key of a path: the first `--scope` glob that matches it, else the path itself. */
export function laneKeys(paths: readonly string[], scopes: readonly string[]): string[] {
  const matchers = scopes.map((s) => ({ key: `scope:${s}`, test: scopeMatcher(s) }));
  return [...new Set(paths.map((p) => matchers.find((m) => m.test(p))?.key ?? `path:${p}`))];
}

/**
 * Splits `items` (in integration order) into lanes: connected by a shared key. Each lane keeps the order of
 * `items`; lanes come in the order of their first item. An item with no known paths (`null`: a head git
 * cannot read, which the merge then reports `blocked`) is alone in its lane.
 */
export function splitLanes<T>(
  items: readonly T[],
  pathsOf: (item: T) => readonly string[] | null,
  scopes: readonly string[],
): T[][] {
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      const up = parent[parent[i] as number] as number;
      parent[i] = up;
      i = up;
    }
    return i;
  };
  const owner = new Map<string, number>();
  items.forEach((item, i) => {
    const paths = pathsOf(item);
    for (const key of laneKeys(paths ?? [], scopes)) {
      const first = owner.get(key);
      if (first === undefined) owner.set(key, i);
      else {
        const [a, b] = [find(first), find(i)];
        // The earlier item is the root: a lane is named by its first task.
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  });
  const lanes = new Map<number, T[]>();
  items.forEach((item, i) => {
    const root = find(i);
    const lane = lanes.get(root);
    if (lane) lane.push(item);
    else lanes.set(root, [item]);
  });
  return [...lanes.values()];
}
