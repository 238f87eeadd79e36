import type { z } from 'zod';
import { CoordError } from '../../core/errors.js';

/** Parse with a schema of this transport; bad input is `invalid_request` naming each field, as in core. */
export function parseWith<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(input)', message: i.message }));
  throw new CoordError('invalid_request', `invalid ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
    issues,
  });
}
