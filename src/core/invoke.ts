import type { z } from 'zod';
import { CoordError } from './errors.js';
import type { Ctx, Operation } from './operation.js';

/** Validates raw input against the operation's schema; bad input becomes `invalid_request` listing each field. */
export function parseInput<I extends z.ZodType>(op: Operation<I, unknown>, raw: unknown): z.output<I> {
  const parsed = op.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
  throw new CoordError('invalid_request', `invalid input: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
    issues,
  });
}

export async function invoke<I extends z.ZodType, O>(op: Operation<I, O>, ctx: Ctx, raw: unknown): Promise<O> {
  return op.run(ctx, parseInput(op, raw));
}
