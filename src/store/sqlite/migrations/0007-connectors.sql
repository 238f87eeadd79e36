-- Remote connectors (SPEC §16): OAuth clients, the owner's one-time consent codes, authorization codes,
-- grants (one agent on one board for one client) and their tokens. Every secret is kept only as its
-- SHA-256 hash (hex). Times are ms since the epoch.
CREATE TABLE oauth_clients (
  client_id     TEXT PRIMARY KEY,
  secret_hash   TEXT,
  name          TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,
  metadata      TEXT NOT NULL,
  created_at    INTEGER NOT NULL
) STRICT;

-- Spent by deleting the row: a code is single-use.
CREATE TABLE connect_codes (
  hash       TEXT PRIMARY KEY,
  board      TEXT,
  agent      TEXT,
  expires_at INTEGER NOT NULL
) STRICT;

-- Kept after use (used = 1, grant_id) so a code presented again revokes the grant it made.
CREATE TABLE oauth_codes (
  hash         TEXT PRIMARY KEY,
  client_id    TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  challenge    TEXT NOT NULL,
  resource     TEXT NOT NULL,
  board        TEXT NOT NULL,
  agent        TEXT NOT NULL,
  expires_at   INTEGER NOT NULL,
  used         INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1)),
  grant_id     TEXT
) STRICT;

CREATE TABLE connector_grants (
  id           TEXT PRIMARY KEY,
  client_id    TEXT NOT NULL,
  client_name  TEXT NOT NULL,
  board        TEXT NOT NULL,
  agent        TEXT NOT NULL,
  resource     TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at   INTEGER
) STRICT;
CREATE INDEX connector_grants_client ON connector_grants (client_id);

-- A refresh token is spent (spent = 1) when rotated; presented again, it revokes its grant.
CREATE TABLE oauth_tokens (
  hash       TEXT PRIMARY KEY,
  grant_id   TEXT NOT NULL REFERENCES connector_grants (id),
  kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at INTEGER NOT NULL,
  spent      INTEGER NOT NULL DEFAULT 0 CHECK (spent IN (0, 1))
) STRICT;
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
