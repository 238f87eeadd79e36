-- Remote connectors (SPEC §16), the twin of sqlite/migrations/0007-connectors.sql: OAuth clients, the owner's one-time
-- consent codes, authorization codes,
-- grants (one agent on one board for one client) and their tokens. Every secret is kept only as its
-- SHA-256 hash (hex). Times are ms since the epoch.
CREATE TABLE oauth_clients (
  client_id     text PRIMARY KEY,
  secret_hash   text,
  name          text NOT NULL,
  redirect_uris text NOT NULL,
  metadata      text NOT NULL,
  created_at    bigint NOT NULL
);

-- Spent by deleting the row: a code is single-use.
CREATE TABLE connect_codes (
  hash       text PRIMARY KEY,
  board      text,
  agent      text,
  expires_at bigint NOT NULL
);

-- Kept after use (used, grant_id) so a code presented again revokes the grant it made.
CREATE TABLE oauth_codes (
  hash         text PRIMARY KEY,
  client_id    text NOT NULL,
  redirect_uri text NOT NULL,
  challenge    text NOT NULL,
  resource     text NOT NULL,
  board        text NOT NULL,
  agent        text NOT NULL,
  expires_at   bigint NOT NULL,
  used         boolean NOT NULL DEFAULT false,
  grant_id     text
);

CREATE TABLE connector_grants (
  id           text PRIMARY KEY,
  client_id    text NOT NULL,
  client_name  text NOT NULL,
  board        text NOT NULL,
  agent        text NOT NULL,
  resource     text NOT NULL,
  created_at   bigint NOT NULL,
  last_used_at bigint,
  revoked_at   bigint
);
CREATE INDEX connector_grants_client ON connector_grants (client_id);

-- A refresh token is spent (spent) when rotated; presented again, it revokes its grant.
CREATE TABLE oauth_tokens (
  hash       text PRIMARY KEY,
  grant_id   text NOT NULL REFERENCES connector_grants (id),
  kind       text NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at bigint NOT NULL,
  spent      boolean NOT NULL DEFAULT false
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
