/**
 * The decisions of SPEC §16 both stores take around their SQL: which board and agent an approved code keeps,
 * whether a presented code or refresh token is honoured, and the grant a redeemed code makes.
 */
import type { AuthCodeRecord, Connectors, Grant, OAuthClientRecord } from '../../core/connectors/connector-ports.js';
import { type CodeRow, type GrantRow, type TokenRow, toCode, toGrant } from './connector-rows.js';

export type Answer<M extends keyof Connectors> = Awaited<ReturnType<Connectors[M]>>;
type Approve = Parameters<Connectors['approve']>[0];
type Redeem = Parameters<Connectors['redeemCode']>[0];
type Rotate = Parameters<Connectors['rotateRefresh']>[0];

/** The code as kept: a consent code's own board / agent replaces a field left blank on the form. */
export function approvedCode(
  cmd: Approve,
  spent: { board: string | null; agent: string | null } | null,
): AuthCodeRecord {
  const c = { ...cmd.code };
  if (cmd.from_connect?.board && spent?.board) c.board = spent.board;
  if (cmd.from_connect?.agent && spent?.agent) c.agent = spent.agent;
  return c;
}

/** A token or code presented again: the grant it made is revoked (`revoked` names it). */
export const reused = (revoked: string | null) => ({ ok: false as const, reason: 'reused' as const, revoked });

/** A presented code before it is spent: the refusal, 'reused' (revoke its grant), or null (spend it). */
export function codeBeforeSpend(r: CodeRow | undefined, cmd: Redeem): Answer<'redeemCode'> | 'reused' | null {
  if (!r) return { ok: false, reason: 'unknown' };
  if (r.used) return 'reused';
  if (r.client_id !== cmd.client_id) return { ok: false, reason: 'wrong_client' };
  return null;
}

/**
 * A spent code (spent whatever follows: one that failed its checks once is never tried again) makes the grant
 * of its still-registered client, unless it expired or the caller's check refuses it.
 */
export function grantOfCode(
  r: CodeRow,
  cmd: Redeem,
  client: OAuthClientRecord | null,
  now: number,
): Answer<'redeemCode'> | Grant {
  if (Number(r.expires_at) <= now) return { ok: false, reason: 'expired' };
  const code = toCode(r);
  const why = cmd.check(code);
  if (why !== null) return { ok: false, reason: 'refused', why };
  if (!client) return { ok: false, reason: 'wrong_client' };
  return {
    id: cmd.grant_id,
    client_id: code.client_id,
    client_name: client.name,
    board: code.board,
    agent: code.agent,
    resource: code.resource,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  };
}

/** A presented refresh token of a live grant: the refusal, 'reused' (revoke the grant), or null (rotate it). */
export function refreshRefusal(
  t: TokenRow,
  grant: Grant | null,
  cmd: Rotate,
  now: number,
): Answer<'rotateRefresh'> | 'reused' | null {
  if (!grant || grant.revoked_at !== null) return { ok: false, reason: 'unknown' };
  if (grant.client_id !== cmd.client_id) return { ok: false, reason: 'wrong_client' };
  if (t.spent) return 'reused';
  if (Number(t.expires_at) <= now) return { ok: false, reason: 'expired' };
  return null;
}

/** The grant an access token belongs to, with the token's expiry. */
export const accessGrant = (r: (GrantRow & { token_expires_at: number }) | undefined) =>
  r ? { ...toGrant(r), token_expires_at: Number(r.token_expires_at) } : null;
