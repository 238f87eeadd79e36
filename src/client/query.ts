/**
 * A query string from a record, on its own so that what needs only this (the Claude push path of
 * `coord mcp`) does not load the route table, the operations and zod through call.ts.
 */

/** `?a=1&b=x&l=1&l=2` from the defined values of a record (arrays repeat their key); '' when none. */
export function query(params: Record<string, unknown>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) s.append(k, String(one));
  }
  const text = s.toString();
  return text ? `?${text}` : '';
}
