import type { z } from 'zod';
import { confineInput, scrubbed, scrubbedError } from './connectors/confine.js';
import { CoordError } from './errors.js';
import type { Ctx, Operation } from './operation.js';

/** Validates raw input against the operation's schema; bad input becomes `invalid_request` listing each field. */
export function parseInput<I extends z.ZodType>(op: Operation<I, unknown>, raw: unknown): z.output<I> {
  const parsed = op.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
  const text = parsed.error.issues.map((i, n) => `${issues[n]?.path}: ${i.message}${missingHint(raw, i)}`);
  throw new CoordError('invalid_request', `invalid input: ${text.join('; ')}`, { issues });
}

/**
 * A required key that is absent is named, with a key beside it that looks like a typo of it (`titel` for
 * `title`): zod's own words ("expected string, received undefined") name neither.
 */
function missingHint(raw: unknown, issue: z.core.$ZodIssue): string {
  const key = issue.path.at(-1);
  if (issue.code !== 'invalid_type' || typeof key !== 'string') return '';
  let parent: unknown = raw;
  for (const p of issue.path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown> | null)?.[p as PropertyKey];
  if (parent === null || typeof parent !== 'object' || key in parent) return '';
  const typo = Object.keys(parent).find((k) => nearlyEqual(k, key));
  return ` — \`${key}\` is missing${typo ? ` (is \`${typo}\` a typo of it?)` : ''}`;
}

/** One edit apart, or two letters swapped (`titel` / `title`). */
function nearlyEqual(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    const diff = [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
    const [i, j] = diff;
    return diff.length === 1 || (diff.length === 2 && j === (i ?? 0) + 1 && a[i ?? 0] === b[j] && a[j] === b[i ?? 0]);
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  for (let i = 0; i < long.length; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true;
  return false;
}

export async function invoke<I extends z.ZodType, O>(op: Operation<I, O>, ctx: Ctx, raw: unknown): Promise<O> {
  if (ctx.confined_to === undefined) return op.run(ctx, parseInput(op, raw));
  // SPEC §16: a connector names nothing of another board, and hears no path of the owner's machine.
  try {
    const input = parseInput(op, raw);
    await confineInput(ctx, ctx.confined_to, input);
    return scrubbed(await op.run(ctx, input));
  } catch (err) {
    throw scrubbedError(err);
  }
}
