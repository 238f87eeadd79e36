/** The shape of an MCP tool (SPEC §5) and what every tool file shares: annotations, the remembered claim id. */
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Ctx } from '../../core/operation.js';
import type { CoreListing, ToolArgs } from './listed-schema.js';
import type { McpSession } from './session.js';

export interface ToolEnv {
  ctx: Ctx;
  session: McpSession;
}

export interface ToolOutput {
  /** What the model reads. */
  text: string;
  /** The operation's output, as `structuredContent` for programs. */
  data: object;
}

export interface Tool {
  name: string;
  description: string;
  input: z.ZodObject;
  /** SPEC §5: Codex refuses, headless, any tool without them. */
  annotations: ToolAnnotations;
  /**
   * In the core surface (SPEC §17: clients that load every schema into every request), listed this
   * short; a tool without it is offered only with `--tools all`. The tool behaves the same either way.
   */
  core?: CoreListing;
  run(args: ToolArgs, env: ToolEnv): Promise<ToolOutput>;
}

/** Reads only this board. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
/** Writes this board only, nothing outside it, and nothing that cannot be redone: safe without a human. */
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
/** Retrying is safe (the store replays it). */
export const WRITE_IDEMPOTENT: ToolAnnotations = { ...WRITE, idempotentHint: true };

export const RememberedClaimId = { claim_id: true } as const;
export const claimIdNote = ' Leave claim_id out when this session made the claim: it is remembered.';

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The session's work tree, when it has one (SPEC §14): locks, claims and submits say where the work is. */
export const treeOf = (session: { root: string | null }): { worktree?: string } =>
  session.root ? { worktree: session.root } : {};
