/** The one map from error code to CLI exit code (SPEC §7), derived from the code's kind (core/errors.ts). */
import { type ErrorKind, kindOf } from '../core/errors.js';

export const EXIT = { ok: 0, usage: 1, conflict: 2, unreachable: 3 } as const;

const EXIT_OF_KIND: Record<ErrorKind, number> = {
  invalid: EXIT.usage,
  unauthorized: EXIT.usage,
  forbidden: EXIT.usage,
  not_found: EXIT.usage,
  conflict: EXIT.conflict,
  too_large: EXIT.usage,
  unavailable: EXIT.unreachable,
  internal: EXIT.usage,
};

/** `unreachable` is the client's own code: no daemon answered at all. */
export const exitCodeFor = (code: string): number =>
  code === 'unreachable' ? EXIT.unreachable : EXIT_OF_KIND[kindOf(code)];
