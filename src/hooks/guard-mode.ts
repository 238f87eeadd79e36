/**
 * `COORD_GUARD` turns the hooks' enforcement up or down: `off` skips them,
 * `warn` only warns where it would block, `strict` also refuses when the
 * daemon cannot be asked (by default a hook fails open: allow + one warning).
 */
export type GuardMode = 'on' | 'off' | 'warn' | 'strict';

export function guardMode(env: NodeJS.ProcessEnv): GuardMode {
  const v = (env.COORD_GUARD ?? '').trim().toLowerCase();
  return v === 'off' || v === 'warn' || v === 'strict' ? v : 'on';
}

/** What a hook decided, before it is put in its client's words (answer.ts). */
export type Verdict =
  /** `note`: one line for the model (answer.ts: the client's allowNoting, else stderr like a warning). */
  | { kind: 'allow'; warning?: string; note?: string }
  | { kind: 'deny'; reason: string }
  /** Session start / stop: context for the model. */
  | { kind: 'context'; text: string }
  /** Stop: keep the agent going with this. */
  | { kind: 'continue'; reason: string };

/** `14:02:11 UTC (in 9m)`: one wording, in core (edit-decision.ts). */
export { leaseEnd } from '../core/edits/edit-decision.js';
