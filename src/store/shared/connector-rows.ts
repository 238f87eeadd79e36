/** Rows of the connector tables (SPEC §16) as both stores read them, and the events they append. */
import type { AuthCodeRecord, Grant, OAuthClientRecord } from '../../core/connectors/connector-ports.js';
import type { NewEvent } from './new-event.js';

export interface ClientRow {
  client_id: string;
  secret_hash: string | null;
  name: string;
  redirect_uris: string;
  metadata: string;
  created_at: number;
}

export const toClient = (r: ClientRow): OAuthClientRecord => ({
  client_id: r.client_id,
  secret_hash: r.secret_hash,
  name: r.name,
  redirect_uris: JSON.parse(r.redirect_uris) as string[],
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  created_at: Number(r.created_at),
});

export interface CodeRow extends AuthCodeRecord {
  used: number | boolean;
  grant_id: string | null;
}

export const toCode = (r: CodeRow): AuthCodeRecord => ({
  hash: r.hash,
  client_id: r.client_id,
  redirect_uri: r.redirect_uri,
  challenge: r.challenge,
  resource: r.resource,
  board: r.board,
  agent: r.agent,
  expires_at: Number(r.expires_at),
});

export type GrantRow = Grant;

export const toGrant = (r: GrantRow): Grant => ({
  id: r.id,
  client_id: r.client_id,
  client_name: r.client_name,
  board: r.board,
  agent: r.agent,
  resource: r.resource,
  created_at: Number(r.created_at),
  last_used_at: r.last_used_at === null ? null : Number(r.last_used_at),
  revoked_at: r.revoked_at === null ? null : Number(r.revoked_at),
});

export interface TokenRow {
  hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  expires_at: number;
  spent: number | boolean;
}

export const grantedEvent = (g: Grant): NewEvent => ({
  type: 'connector.granted',
  board: g.board,
  agent: g.agent,
  data: { grant_id: g.id, client_id: g.client_id, client_name: g.client_name },
});

export const revokedEvent = (g: Grant, why: 'revoked' | 'client_deleted' | 'token_reused'): NewEvent => ({
  type: 'connector.revoked',
  board: g.board,
  agent: g.agent,
  data: { grant_id: g.id, client_id: g.client_id, client_name: g.client_name, why },
});

/** `last_used_at` is written at most once a minute per grant: not one write per MCP call. */
export const LAST_USE_GRANULARITY_MS = 60_000;
export const needsTouch = (g: Grant, now: number): boolean =>
  g.last_used_at === null || now - g.last_used_at >= LAST_USE_GRANULARITY_MS;
