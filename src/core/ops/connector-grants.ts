/**
 * The OAuth edge's calls (SPEC §16): registration, consent, codes, tokens and the bearer check, each an
 * operation over the store's connector tables like every other edge's call. They are not in the operations
 * table: no route, tool or command names them — only server/oauth/ speaks OAuth, and answers in its words.
 * Every secret arrives here already hashed (`secretHash`): the store never sees one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AuthCodeRecord } from '../connectors/connector-ports.js';
import { defineOperation } from '../operation.js';

// Read as sent: an odd client_id is an unknown client (invalid_client), never a coord error.
const Hash = z.string();
const Id = z.string();

const OAuthClientSchema = z.object({
  client_id: z.string(),
  secret_hash: z.string().nullable(),
  name: z.string(),
  redirect_uris: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.number(),
});

const GrantSchema = z.object({
  id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  board: z.string(),
  agent: z.string(),
  resource: z.string(),
  created_at: z.number(),
  last_used_at: z.number().nullable(),
  revoked_at: z.number().nullable(),
});

const TokenPairSchema = z.object({
  access_hash: Hash,
  access_expires_at: z.number(),
  refresh_hash: Hash,
  refresh_expires_at: z.number(),
});

const AuthCodeSchema = z.object({
  hash: Hash,
  client_id: Id,
  redirect_uri: z.string(),
  challenge: z.string(),
  resource: z.string(),
  board: z.string(),
  agent: z.string(),
  expires_at: z.number(),
});

/** How a spent code or refresh token was answered (connector-ports.ts `Spend`). */
const spent = <T extends z.ZodRawShape>(ok: T) =>
  z.union([
    z.object({ ok: z.literal(true), ...ok }),
    z.object({ ok: z.literal(false), reason: z.enum(['unknown', 'expired', 'wrong_client']) }),
    z.object({ ok: z.literal(false), reason: z.literal('reused'), revoked: z.string().nullable() }),
  ]);

export const registerOAuthClient = defineOperation({
  name: 'oauth_register_client',
  summary: 'Registers a client (RFC 7591); null while too many registrations still wait for a grant.',
  input: z.object({
    client_id: Id,
    secret_hash: Hash.nullable(),
    name: z.string(),
    redirect_uris: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    max_unused: z.number().int().nonnegative(),
  }),
  output: z.object({ client: OAuthClientSchema.nullable() }),
  async run(ctx, { max_unused, ...client }) {
    return { client: await ctx.store.registerClient(client, max_unused) };
  },
});

export const oauthClient = defineOperation({
  name: 'oauth_client',
  summary: 'A registered client, or null (unknown or deleted: the host registers again).',
  input: z.object({ client_id: Id }),
  output: z.object({ client: OAuthClientSchema.nullable() }),
  async run(ctx, input) {
    return { client: await ctx.store.getClient(input.client_id) };
  },
});

export const pendingConnect = defineOperation({
  name: 'oauth_pending_connect',
  summary: "The newest consent code still usable: its board and agent fill what the owner's form left blank.",
  input: z.object({}),
  output: z.object({ pending: z.object({ board: z.string().nullable(), agent: z.string().nullable() }).nullable() }),
  async run(ctx) {
    return { pending: await ctx.store.pendingConnect() };
  },
});

export const approveConsent = defineOperation({
  name: 'oauth_approve',
  summary: 'The owner approved: spends the consent code (null: the dashboard token) and keeps the authorization code.',
  input: z.object({
    connect_hash: Hash.nullable(),
    code: AuthCodeSchema,
    from_connect: z.object({ board: z.boolean(), agent: z.boolean() }),
  }),
  output: z.union([
    z.object({ ok: z.literal(false) }),
    z.object({ ok: z.literal(true), board: z.string(), agent: z.string() }),
  ]),
  async run(ctx, input) {
    return ctx.store.approve(input);
  },
});

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** Compared in constant time: a hash or challenge must not be guessed byte by byte. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Why a code may not be redeemed by this request (PKCE S256, redirect URI, resource), or null. */
export function codeRefusal(
  code: AuthCodeRecord,
  req: { verifier: unknown; redirect_uri?: unknown; resource: string },
): string | null {
  const v = req.verifier;
  if (typeof v !== 'string' || !VERIFIER.test(v) || !sameSecret(s256(v), code.challenge)) {
    return 'code_verifier does not match the code_challenge (S256)';
  }
  // OAuth 2.1 §4.1.3: the same redirect URI as at the authorization endpoint, when sent.
  if (req.redirect_uri !== undefined && req.redirect_uri !== code.redirect_uri) {
    return 'redirect_uri differs from the one the code was issued for';
  }
  if (code.resource !== req.resource) return 'the code was issued for another resource';
  return null;
}

export const redeemCode = defineOperation({
  name: 'oauth_redeem_code',
  summary: 'An authorization code for a new grant and its first tokens; a code presented again revokes its grant.',
  input: z.object({
    hash: Hash,
    client_id: Id,
    grant_id: Id,
    tokens: TokenPairSchema,
    /**
     * The PKCE verifier, the redirect URI when sent, and this daemon's resource: checked against the code.
     * As the client sent them: a verifier or redirect URI that is no string is refused as not matching.
     */
    verifier: z.unknown(),
    redirect_uri: z.unknown().optional(),
    resource: z.string(),
  }),
  output: z.union([
    spent({ grant: GrantSchema }),
    z.object({ ok: z.literal(false), reason: z.literal('refused'), why: z.string() }),
  ]),
  async run(ctx, { verifier, redirect_uri, resource, ...cmd }) {
    return ctx.store.redeemCode({ ...cmd, check: (code) => codeRefusal(code, { verifier, redirect_uri, resource }) });
  },
});

export const rotateRefresh = defineOperation({
  name: 'oauth_rotate_refresh',
  summary: 'Rotates a refresh token: the old one is spent, a new pair issued; a spent one presented again revokes.',
  input: z.object({ hash: Hash, client_id: Id, tokens: TokenPairSchema }),
  output: spent({ grant: GrantSchema }),
  async run(ctx, input) {
    return ctx.store.rotateRefresh(input);
  },
});

export const grantOfAccessToken = defineOperation({
  name: 'oauth_grant_of_token',
  summary: 'The live grant an access token belongs to (not expired, not revoked, its client still registered).',
  input: z.object({ hash: Hash }),
  output: z.object({ grant: GrantSchema.extend({ token_expires_at: z.number() }).nullable() }),
  async run(ctx, input) {
    return { grant: await ctx.store.grantOfAccessToken(input.hash) };
  },
});

/** The OAuth edge's operations (server/oauth/ calls them through `invoke`, as every edge does). */
export const connectorGrantOperations = {
  registerOAuthClient,
  oauthClient,
  pendingConnect,
  approveConsent,
  redeemCode,
  rotateRefresh,
  grantOfAccessToken,
} as const;
