/**
 * Remote connectors seen from the owner's side (SPEC §16): the one-time consent code `coord connect`
 * prints, the list of grants and their revocation. The OAuth protocol itself is an edge (server/oauth/).
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Grant } from '../connectors/connector-ports.js';
import { CoordError } from '../errors.js';
import { defineOperation } from '../operation.js';
import { AgentName, BoardName, QueryBool } from '../schemas.js';

/** How long a consent code can be used (SPEC §16: 10 minutes, once). */
export const CONNECT_CODE_TTL_MS = 10 * 60_000;

/** What every one-time secret is stored as: its SHA-256, hex. */
export const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

// No 0/o, 1/l/i: a person reads the code from a terminal and types it into a web page.
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
/** 12 characters (≈ 59 bits) in three groups: single use, 10 minutes, rate-limited at the page. */
function newConnectCode(): string {
  const chars = [...randomBytes(12)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const ConnectorSchema = z.object({
  id: z.string(),
  client_id: z.string(),
  client: z.string().describe('The name the client registered with.'),
  agent: z.string(),
  board: z.string(),
  resource: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
const toConnector = (g: Grant): z.output<typeof ConnectorSchema> => ({
  id: g.id,
  client_id: g.client_id,
  client: g.client_name,
  agent: g.agent,
  board: g.board,
  resource: g.resource,
  created_at: iso(g.created_at) ?? '',
  last_used_at: iso(g.last_used_at),
  revoked_at: iso(g.revoked_at),
});

export const connect = defineOperation({
  name: 'connect',
  summary: 'A one-time code (10 minutes) that approves one remote connector on the consent page.',
  input: z.object({ board: BoardName.optional(), agent: AgentName.optional() }),
  output: z.object({
    code: z.string(),
    expires_at: z.string(),
    url: z.string().describe('The connector URL to paste into the chat host.'),
    board: z.string().nullable(),
    agent: z.string().nullable(),
  }),
  async run(ctx, input) {
    if (!ctx.public_url) {
      throw new CoordError('invalid_request', 'this daemon has no public URL: start it with coord serve --public-url');
    }
    const code = newConnectCode();
    const expires = ctx.clock.now() + CONNECT_CODE_TTL_MS;
    const board = input.board ?? null;
    const agent = input.agent ?? null;
    await ctx.store.addConnectCode({ hash: secretHash(code), board, agent, expires_at: expires });
    return { code, expires_at: new Date(expires).toISOString(), url: `${ctx.public_url}/mcp`, board, agent };
  },
});

export const listConnectors = defineOperation({
  name: 'list_connectors',
  summary: 'Remote connectors granted on this daemon: client, agent, board, created, last use.',
  input: z.object({ all: QueryBool.optional().describe('Include revoked grants.') }),
  output: z.object({ connectors: z.array(ConnectorSchema) }),
  async run(ctx, input) {
    const grants = await ctx.store.listGrants();
    return { connectors: grants.filter((g) => input.all || g.revoked_at === null).map(toConnector) };
  },
});

export const revokeConnector = defineOperation({
  name: 'revoke_connector',
  summary: 'End a connector grant now (its next call is 401); with client, delete its registration too.',
  input: z.object({ id: z.string().min(1).max(100), client: z.boolean().optional() }),
  output: z.object({ connector: ConnectorSchema }),
  async run(ctx, input) {
    const g = await ctx.store.revokeGrant({ id: input.id, delete_client: input.client === true });
    if (!g) throw new CoordError('not_found', `no connector ${input.id}`);
    return { connector: toConnector(g) };
  },
});
