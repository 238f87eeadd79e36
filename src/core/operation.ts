import type { z } from 'zod';
import type { Clock } from './clock.js';
import type { Store } from './ports.js';
import type { Presence } from './presence.js';

/** What every operation runs with: the store, the clock, and who is calling through which session. */
export interface Ctx {
  store: Store;
  clock: Clock;
  presence: Presence;
  /** The MCP session (or other owner) this call belongs to; claims and locks die with it. */
  session_id?: string | null;
  /** Aborted when the caller goes away (an HTTP client disconnects during a long-poll). */
  signal?: AbortSignal;
}

/**
 * Declared once: name, input and output schemas, handler. HTTP routes, the
 * OpenAPI document, MCP tools and CLI commands are all derived from these.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O = unknown> {
  name: string;
  summary: string;
  input: I;
  output: z.ZodType;
  run(ctx: Ctx, input: z.output<I>): Promise<O>;
}

export const defineOperation = <I extends z.ZodType, O>(op: Operation<I, O>): Operation<I, O> => op;
