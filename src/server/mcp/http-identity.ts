/** Who opens an MCP session over HTTP (SPEC §5, §16, §17): its `Coord-*` headers or query, or a connector's grant. */
import { isAbsolute } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Grant } from '../../core/connectors/connector-ports.js';
import { AgentName, BoardName } from '../../core/schemas.js';
import { parseWith } from './parse-with.js';

/** Where a client says who it is: `Coord-*` headers, or `agent`/`board` query parameters. */
export const HttpIdentity = z.object({
  agent: AgentName.optional(),
  board: BoardName.optional(),
  /** URI-encoded: a header cannot carry every character a path may have. */
  root: z
    .string()
    .transform((s, ctx) => {
      try {
        return decodeURIComponent(s);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be URI-encoded' });
        return z.NEVER;
      }
    })
    .refine(isAbsolute, 'must be an absolute path')
    .optional(),
  session: z.uuid().optional(),
  /** `guessed`: board and root came from a working directory; the client's own word may replace them. */
  workspace: z.literal('guessed').optional(),
  /** SPEC §17: which tools to list; by default what the profile of the client's `initialize` name says, else all. */
  tools: z.enum(['lean', 'core', 'all']).optional(),
  /**
   * The client's kind (`coord mcp --client`): its profile says how its model reads results and which
   * tools it gets. A kind this daemon does not know (a newer coord mcp) is as if none were given.
   */
  client: z.string().optional(),
  /**
   * SPEC §18: `<task_id>:<claim_id>` ($COORD_CLAIM of an agent `coord run` started): the session starts holding
   * that claim, so `submit_result` needs no claim_id. The claim is the supervisor's, fenced as any other.
   */
  claim: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,12}:[^\s:]{1,100}$/, 'must be TASK_ID:CLAIM_ID')
    .optional(),
});

export type Identity = z.output<typeof HttpIdentity>;

/**
 * Who opens a session, from its headers or query; a connector is the grant's agent on the grant's board, whatever
 * those say (SPEC §16).
 */
export function identityOf(req: FastifyRequest, grant: Grant | null): Identity {
  if (grant) return { agent: grant.agent, board: grant.board };
  const h = req.headers;
  const q = req.query as Record<string, unknown>;
  return parseWith(HttpIdentity, {
    agent: h['coord-agent'] ?? q.agent,
    board: h['coord-board'] ?? q.board,
    root: h['coord-root'],
    session: h['coord-session'],
    workspace: h['coord-workspace'],
    tools: h['coord-tools'] ?? q.tools,
    client: h['coord-client'] ?? q.client,
    claim: h['coord-claim'],
  });
}

/** The client's name in its `initialize` request. */
export const clientNameOf = (body: unknown): string | undefined => {
  const name = (body as { params?: { clientInfo?: { name?: unknown } } } | undefined)?.params?.clientInfo?.name;
  return typeof name === 'string' ? name : undefined;
};
