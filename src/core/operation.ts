import type { z } from 'zod';
import type { Store } from './ports.js';
import type { Presence } from './presence.js';
import type { Clock } from './shared/clock.js';
import type { GitPort } from './worktrees/git-port.js';

/** What every operation runs with: the store, the clock, and who is calling through which session. */
export interface Ctx {
  store: Store;
  clock: Clock;
  presence: Presence;
  /** SPEC §14: git, where the daemon runs next to the repositories; absent in stores-only tests. */
  git?: GitPort;
  /**
   * SPEC §10, §18: the daemon's looks at work trees for shell edits (server/shell-check.ts), told of each agent a
   * supervisor starts in a work tree; absent in stores-only tests.
   */
  shell?: { launched(ctx: Ctx, worktree: string): void };
  /** SPEC §14: what the machine says about its ports; absent in stores-only tests. */
  machine?: { listening(port: number): Promise<boolean> };
  /** The MCP session (or other owner) this call belongs to; claims and locks die with it. */
  session_id?: string | null;
  /** Aborted when the caller goes away (an HTTP client disconnects during a long-poll). */
  signal?: AbortSignal;
  /**
   * Set when an agent's own session calls (an MCP session, a remote connector): it acts as this agent only.
   * SPEC §14: ending another agent's lock or hold is a person's act (the CLI with the owner's token, the
   * dashboard), never an agent's tool call. Absent for a person's tools.
   */
  acting_agent?: string;
  /** SPEC §19: how long a claim may go with no activity before it needs a person (`serve --idle-after S`). */
  idle_after_ms?: number;
  /** `--public-url` (SPEC §16), without a trailing slash: where remote connectors reach this daemon. */
  public_url?: string | null;
  /** SPEC §16: a remote connector's board — its calls act on that board only, and see no local paths (confine.ts). */
  confined_to?: string;
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

/**
 * The handler's answer must fit the output schema (the one OpenAPI documents and MCP tools declare):
 * a field the schema requires that the handler leaves out, or returns with another type, fails to compile.
 */
export const defineOperation = <N extends string, I extends z.ZodType, S extends z.ZodType, O extends z.output<S>>(
  op: Operation<I, O> & { name: N; output: S },
): Operation<I, O> & { name: N } => op;
