/**
 * The authorization endpoint (OAuth 2.1 §4.1, MCP authorization): GET shows the consent page, POST is the
 * owner's answer. Until the redirect URI is known to be the client's, errors are a page here (never a
 * redirect to a URI nobody vouched for); after, they go back to the client as `?error=`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONNECT_CODE_MAX_WRONG, type OAuthClientRecord } from '../../core/connectors/connector-ports.js';
import { invoke } from '../../core/invoke.js';
import { DEFAULT_BOARD } from '../../core/model.js';
import { approveConsent, oauthClient, pendingConnect } from '../../core/ops/connector-grants.js';
import { secretHash } from '../../core/ops/connectors.js';
import { AgentName, BoardName } from '../../core/schemas.js';
import { derivedAgentName } from '../../core/shared/agent-name.js';
import { consentPage, errorPage, PAGE_HEADERS } from './consent-page.js';
import type { OAuthEdge } from './edge.js';
import { newSecret } from './secrets.js';

/** An authorization code lives one minute: the client redeems it at once (OAuth 2.1 §4.1.2 advises ≤ 10). */
export const CODE_TTL_MS = 60_000;

/** The authorization request's parameters, carried through the consent form unchanged. */
const REQUEST_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'resource',
  'scope',
] as const;
type Params = Partial<Record<string, string>>;

interface AuthRequest {
  client: OAuthClientRecord;
  redirect_uri: string;
  state: string | undefined;
  challenge: string;
  resource: string;
  hidden: Record<string, string>;
}

type Checked =
  | { ok: true; req: AuthRequest }
  | { ok: false; page: { status: number; error: string; description: string } }
  | { ok: false; redirect: string };

const first = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;

function backTo(edge: OAuthEdge, uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  // RFC 9207: the client checks that the answer comes from the issuer it asked (mix-up defence).
  u.searchParams.set('iss', edge.site.url);
  return u.toString();
}

async function check(edge: OAuthEdge, p: Params): Promise<Checked> {
  const clientId = p.client_id;
  const client = clientId ? (await invoke(oauthClient, edge.ctx, { client_id: clientId })).client : null;
  if (!client) {
    // SPEC §16: an unknown or deleted client hears invalid_client, so the host registers again.
    return {
      ok: false,
      page: { status: 401, error: 'invalid_client', description: 'unknown client_id: register again' },
    };
  }
  let redirect = p.redirect_uri;
  if (redirect === undefined && client.redirect_uris.length === 1) redirect = client.redirect_uris[0];
  // Exact string match (OAuth 2.1 §2.3.1): no prefix, no normalisation.
  if (redirect === undefined || !client.redirect_uris.includes(redirect)) {
    const description = 'redirect_uri is not one this client registered';
    return { ok: false, page: { status: 400, error: 'invalid_request', description } };
  }
  const state = p.state;
  const asked = protocolChecked(p, edge.site.resource);
  if (!asked.ok) {
    return { ok: false, redirect: backTo(edge, redirect, { error: asked.error, error_description: asked.why, state }) };
  }
  const hidden: Record<string, string> = {};
  for (const k of REQUEST_FIELDS) {
    const v = k === 'redirect_uri' ? redirect : p[k];
    if (v !== undefined) hidden[k] = v;
  }
  return {
    ok: true,
    req: { client, redirect_uri: redirect, state, challenge: asked.challenge, resource: asked.resource, hidden },
  };
}

type Protocol = { ok: true; challenge: string; resource: string } | { ok: false; error: string; why: string };

/** The request's OAuth parameters (from a known client, to its registered redirect URI), or what is wrong with them. */
function protocolChecked(p: Params, resource: string): Protocol {
  const no = (error: string, why: string): Protocol => ({ ok: false, error, why });
  if (p.response_type !== 'code') return no('unsupported_response_type', 'response_type must be code');
  if (!p.code_challenge) return no('invalid_request', 'PKCE is required: send code_challenge (S256)');
  if (p.code_challenge_method !== 'S256') return no('invalid_request', 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge)) return no('invalid_request', 'code_challenge is not S256');
  if (!p.resource) return no('invalid_target', `resource is required: ${resource}`);
  if (p.resource !== resource) return no('invalid_target', `resource must be ${resource}, not ${p.resource}`);
  return { ok: true, challenge: p.code_challenge, resource: p.resource };
}

function refuse(reply: FastifyReply, checked: Exclude<Checked, { ok: true }>): FastifyReply {
  if ('redirect' in checked) return reply.code(303).header('cache-control', 'no-store').redirect(checked.redirect, 303);
  const { status, error, description } = checked.page;
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .send(errorPage(status, error, description));
}

/**
 * The page shows only what the form was sent with: the board and agent a `coord connect` code names are the
 * owner's and are never shown to someone without the code (SPEC §16) — left blank, they come from the code.
 */
async function showConsent(
  reply: FastifyReply,
  r: AuthRequest,
  fields: { board?: string | undefined; agent?: string | undefined; error?: string; status?: number },
): Promise<FastifyReply> {
  const page = consentPage({
    client: r.client.name,
    redirectHost: new URL(r.redirect_uri).host,
    board: fields.board ?? '',
    agent: fields.agent ?? '',
    defaultAgent: derivedAgentName(r.client.name),
    hidden: r.hidden,
    ...(fields.error ? { error: fields.error } : {}),
  });
  return reply
    .code(fields.status ?? 200)
    .headers(PAGE_HEADERS)
    .send(page);
}

export async function authorizeGet(edge: OAuthEdge, req: FastifyRequest, reply: FastifyReply) {
  const q = req.query as Record<string, unknown>;
  const params: Params = {};
  for (const k of REQUEST_FIELDS) params[k] = first(q[k]);
  const checked = await check(edge, params);
  if (!checked.ok) return refuse(reply, checked);
  return showConsent(reply, checked.req, {});
}

export async function authorizePost(edge: OAuthEdge, req: FastifyRequest, reply: FastifyReply) {
  // A browser names the page's origin when it posts a form; the guard already refused any other origin.
  // Without one, this is no post from coord's own page (SPEC §16: refused from another origin).
  if (req.headers.origin === undefined) {
    const description = 'the consent form must be posted from its own page';
    return reply
      .code(403)
      .headers(PAGE_HEADERS)
      .send(errorPage(403, 'access_denied', description));
  }
  const body = (req.body ?? {}) as Params;
  const checked = await check(edge, body);
  if (!checked.ok) return refuse(reply, checked);
  const r = checked.req;
  if (body.decision === 'deny') {
    const to = backTo(edge, r.redirect_uri, {
      error: 'access_denied',
      error_description: 'the owner said no',
      state: r.state,
    });
    return reply.redirect(to, 303);
  }
  // Blank fields are the code's (or, proved by the dashboard token, the newest pending code's): see showConsent.
  const typed = { board: body.board?.trim() || undefined, agent: body.agent?.trim() || undefined };
  const board = BoardName.safeParse(typed.board ?? DEFAULT_BOARD);
  const agent = AgentName.safeParse(typed.agent ?? derivedAgentName(r.client.name));
  if (!board.success || !agent.success) {
    const error = `${board.success ? 'agent name' : 'board'} must be 1–64 characters of A-Z a-z 0-9 . _ : # @ / -`;
    return showConsent(reply, r, { board: body.board, agent: body.agent, error, status: 400 });
  }
  return approve(edge, reply, r, (body.code ?? '').trim(), typed, { board: board.data, agent: agent.data });
}

/**
 * The owner's approval, proved by a `coord connect` code or the dashboard token: the authorization code goes back
 * to the client, or the form again when the proof is wrong.
 */
async function approve(
  edge: OAuthEdge,
  reply: FastifyReply,
  r: AuthRequest,
  proof: string,
  typed: { board: string | undefined; agent: string | undefined },
  fallback: { board: string; agent: string },
): Promise<FastifyReply> {
  const isToken = ownerToken(edge.token, proof);
  const pending = isToken ? (await invoke(pendingConnect, edge.ctx, {})).pending : null;
  const issued = newSecret('cac');
  const approved = await invoke(approveConsent, edge.ctx, {
    connect_hash: isToken ? null : secretHash(proof.toLowerCase()),
    code: {
      hash: secretHash(issued),
      client_id: r.client.client_id,
      redirect_uri: r.redirect_uri,
      challenge: r.challenge,
      resource: r.resource,
      board: typed.board ?? pending?.board ?? fallback.board,
      agent: typed.agent ?? pending?.agent ?? fallback.agent,
      expires_at: edge.ctx.clock.now() + CODE_TTL_MS,
    },
    from_connect: { board: typed.board === undefined, agent: typed.agent === undefined },
  });
  if (!approved.ok) {
    const error = `That code is wrong, already used or expired (${CONNECT_CODE_MAX_WRONG} wrong answers spend a code): run coord connect for a new one.`;
    return showConsent(reply, r, { board: typed.board, agent: typed.agent, error, status: 400 });
  }
  return reply.redirect(backTo(edge, r.redirect_uri, { code: issued, state: r.state }), 303);
}

function ownerToken(token: string, sent: string): boolean {
  const a = Buffer.from(token);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}
