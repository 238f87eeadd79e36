-- Tasks: one row per task. claim_id is the current claim while state='claimed',
-- else the last one: kept so the finishing claim can replay its submit and a
-- late caller learns why it lost (claim_end). Times are ms since the epoch.
CREATE TABLE tasks (
  id              TEXT PRIMARY KEY,
  board           TEXT NOT NULL,
  kind            TEXT NOT NULL,
  title           TEXT NOT NULL,
  body            TEXT NOT NULL DEFAULT '',
  priority        INTEGER NOT NULL DEFAULT 0,
  labels          TEXT NOT NULL DEFAULT '[]',
  for_agent       TEXT,
  created_by      TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('queued', 'claimed', 'completed', 'failed', 'cancelled', 'expired')),
  claimed_by      TEXT,
  claim_id        TEXT,
  lease_until     INTEGER,
  attempts        INTEGER NOT NULL DEFAULT 0,
  result_status   TEXT CHECK (result_status IN ('completed', 'failed')),
  result          TEXT,
  result_hash     TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  expires_at      INTEGER NOT NULL,
  idempotency_key TEXT,
  payload_hash    TEXT NOT NULL,
  -- The current claim's session (MCP) and lease length; how the last claim ended.
  claim_session   TEXT,
  claim_lease_ms  INTEGER,
  claim_end       TEXT CHECK (claim_end IN ('lapsed', 'released', 'submitted', 'cancelled', 'expired', 'session_ended'))
) STRICT;

CREATE UNIQUE INDEX tasks_idempotency ON tasks (board, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- claim-next and the inbox walk only queued rows, in priority then age order.
CREATE INDEX tasks_queue ON tasks (board, priority, created_at) WHERE state = 'queued';
-- Lazy expiry's read-only check must be an index probe, not a scan of history.
CREATE INDEX tasks_lease_due ON tasks (lease_until) WHERE state = 'claimed';
CREATE INDEX tasks_ttl_due ON tasks (expires_at) WHERE state IN ('queued', 'claimed');
CREATE INDEX tasks_private ON tasks (for_agent, board, priority, created_at) WHERE state = 'queued' AND for_agent IS NOT NULL;
CREATE INDEX tasks_holder ON tasks (claimed_by, board) WHERE state = 'claimed';
CREATE INDEX tasks_board_created ON tasks (board, created_at, id);
CREATE INDEX tasks_session ON tasks (claim_session) WHERE state = 'claimed' AND claim_session IS NOT NULL;

CREATE TABLE artifacts (
  task_id      TEXT NOT NULL REFERENCES tasks (id),
  artifact_id  TEXT NOT NULL,
  name         TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size         INTEGER NOT NULL,
  sha256       TEXT NOT NULL,
  bytes        BLOB NOT NULL,
  claim_id     TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (task_id, artifact_id)
) STRICT;

-- The audit trail and the source of every push; seq is the SSE event id.
CREATE TABLE events (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  board   TEXT NOT NULL,
  type    TEXT NOT NULL,
  task_id TEXT,
  lock_id TEXT,
  agent   TEXT,
  at      INTEGER NOT NULL,
  data    TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX events_board ON events (board, seq);
CREATE INDEX events_agent ON events (agent, at);
