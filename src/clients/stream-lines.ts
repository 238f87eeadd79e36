/** Reading one line of a client's JSON event stream (SPEC §18): the small pure helpers the headless profiles share. */

/** A JSON object or null, from one line of an event stream (a line of plain text gives null). */
export const parsedLine = (line: string): Record<string, unknown> | null => {
  if (!line.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The sum of the numbers present, or null when none is. */
export const sum = (...vs: unknown[]): number | null =>
  vs.map(num).reduce<number | null>((a, b) => (b === null ? a : (a ?? 0) + b), null);

/**
 * A wait a model API asked for, in milliseconds, from an error text: `Retry-After: 120`, `retry after 30s`,
 * `try again in 2m`, `resets in 1h 5m`. Null when the text names none.
 */
export function waitOf(text: string): number | null {
  const m = /(?:retry[- ]after|try again in|resets? in|retry in)[:\s]*((?:\d+(?:\.\d+)?\s*(?:ms|h|m|s)?\s*)+)/i.exec(
    text,
  );
  if (!m?.[1]) return null;
  let ms = 0;
  for (const [, n, unit] of m[1].matchAll(/(\d+(?:\.\d+)?)\s*(ms|h|m|s)?/g)) {
    const v = Number(n);
    ms += unit === 'ms' ? v : unit === 'h' ? v * 3_600_000 : unit === 'm' ? v * 60_000 : v * 1000;
  }
  return Math.round(ms);
}

/** A tool call as a person reads it in a log line: `Bash(npm test)`, `Edit(src/a.ts)` (its command or path, clipped). */
export function toolCall(name: unknown, input: unknown): string {
  const i = obj(input);
  const what = [i.command, i.cmd, i.file_path, i.path, i.pattern, i.url].find((v) => typeof v === 'string');
  const arg = typeof what === 'string' ? what.replace(/\s+/g, ' ').trim() : '';
  const clipped = arg.length > 60 ? `${arg.slice(0, 59)}…` : arg;
  return `${typeof name === 'string' ? name : 'a tool'}${clipped ? `(${clipped})` : ''}`;
}

/** Claude Code's (and Qwen Code's) final `result` lists what the permission mode refused: one signal each. */
export const deniedIn = (result: Record<string, unknown>): { kind: 'refused'; tool: string }[] =>
  (Array.isArray(result.permission_denials) ? result.permission_denials : []).map((d) => ({
    kind: 'refused',
    tool: toolCall(obj(d).tool_name, obj(d).tool_input),
  }));
