/**
 * Remote connectors (SPEC §16): chat hosts that reach coord over OAuth. What the store keeps of them.
 * Every secret (client secret, one-time consent code, authorization code, access and refresh token) is
 * stored only as its SHA-256 hash: the store never sees a secret, only `*_hash` values. Times are ms.
 *
 * A **grant** is one agent name on one board, given by the owner to one registered client; its
 * tokens are bound to one resource (the public `/mcp` URL), so a new `--public-url` ends them.
 */

/** A client registered by dynamic client registration (RFC 7591). */
export interface OAuthClientRecord {
  client_id: string;
  /** Null for a public client (`token_endpoint_auth_method: none`). */
  secret_hash: string | null;
  name: string;
  redirect_uris: string[];
  /** The registration as the client sent it, answered back as RFC 7591 asks. */
  metadata: Record<string, unknown>;
  created_at: number;
}

/** An authorization code: what the owner approved, waiting for the client's token request. */
export interface AuthCodeRecord {
  hash: string;
  client_id: string;
  redirect_uri: string;
  /** PKCE S256 challenge. */
  challenge: string;
  resource: string;
  board: string;
  agent: string;
  expires_at: number;
}

export interface Grant {
  id: string;
  client_id: string;
  client_name: string;
  board: string;
  agent: string;
  resource: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface TokenPair {
  access_hash: string;
  access_expires_at: number;
  refresh_hash: string;
  refresh_expires_at: number;
}

/** How a spent code or refresh token was answered: exactly one caller wins each. */
export type Spend<T> =
  | ({ ok: true } & T)
  | { ok: false; reason: 'unknown' | 'expired' | 'wrong_client' }
  /** Presented a second time: the grant it led to is revoked (RFC 6749 §4.1.2, OAuth 2.1 §4.3.1). */
  | { ok: false; reason: 'reused'; revoked: string | null };

/** SPEC §16: a one-time consent code is spent after this many wrong answers at the consent form. */
export const CONNECT_CODE_MAX_WRONG = 5;

/** How long a registration that led to no grant is kept. */
export const UNUSED_CLIENT_TTL_MS = 24 * 3600_000;

export interface Connectors {
  /**
   * Registers a client, first dropping registrations that never led to a grant within a day (anyone on the
   * internet can register: the table must not grow without bound). Null when `max_unused` registrations
   * younger than that already wait for a grant.
   */
  registerClient(c: Omit<OAuthClientRecord, 'created_at'>, max_unused: number): Promise<OAuthClientRecord | null>;
  getClient(client_id: string): Promise<OAuthClientRecord | null>;
  /** Keeps a one-time consent code (`coord connect`) until it is spent or expires. */
  addConnectCode(c: { hash: string; board: string | null; agent: string | null; expires_at: number }): Promise<void>;
  /**
   * The owner approved: spends the consent code (when `connect_hash` is given; null means the dashboard
   * token proved ownership) and keeps the authorization code, in one transaction. A `connect_hash` that
   * names no live code is a wrong answer: it counts against every live code, and a code answered wrong
   * CONNECT_CODE_MAX_WRONG times is spent (SPEC §16) — a guesser cannot tell which code it was aiming at.
   */
  approve(cmd: {
    connect_hash: string | null;
    code: AuthCodeRecord;
    /** Left blank on the form: the consent code's own board / agent, when it names one, replaces the code's. */
    from_connect?: { board: boolean; agent: boolean };
  }): Promise<{ ok: false } | { ok: true; board: string; agent: string }>;
  /**
   * Redeems an authorization code for a new grant and its first tokens, in one transaction. A code
   * presented again revokes the grant it made.
   */
  redeemCode(cmd: {
    hash: string;
    client_id: string;
    grant_id: string;
    tokens: TokenPair;
    /** Checked against the code inside the transaction (PKCE, redirect URI, resource): null = fine. */
    check: (code: AuthCodeRecord) => string | null;
  }): Promise<Spend<{ grant: Grant }> | { ok: false; reason: 'refused'; why: string }>;
  /** Rotates a refresh token: the old one is spent, a new pair issued. A spent one presented again revokes. */
  rotateRefresh(cmd: { hash: string; client_id: string; tokens: TokenPair }): Promise<Spend<{ grant: Grant }>>;
  /** The live grant an access token belongs to (not expired, not revoked, its client still registered). */
  grantOfAccessToken(hash: string): Promise<(Grant & { token_expires_at: number }) | null>;
  /** The newest consent code still usable: the consent page is prefilled with its board and agent. */
  pendingConnect(): Promise<{ board: string | null; agent: string | null } | null>;
  listGrants(): Promise<Grant[]>;
  /** Revokes a grant (and with `delete_client` its client's registration and every grant of it). */
  revokeGrant(cmd: { id: string; delete_client: boolean }): Promise<Grant | null>;
}
