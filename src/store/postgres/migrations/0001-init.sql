-- The PostgreSQL twin of store/sqlite/migrations/0001-init.sql. Same tables,
-- columns and meanings, so the shared rules (core/rules.ts) read both alike.
-- Times are bigint ms since the epoch, taken from the DATABASE clock (one
-- clock for every daemon, however skewed the machines' clocks are).

-- Tasks: one row per task. claim_id is the current claim while state='claimed',
-- else the last one: kept so the finishing claim can replay its submit and a
-- late caller learns why it lost (claim_end).
CREATE TABLE tasks (
  id              text PRIMARY KEY,
  board           text NOT NULL,
  kind            text NOT NULL,
  title           text NOT NULL,
  body            text NOT NULL DEFAULT '',
  priority        integer NOT NULL DEFAULT 0,
  labels          text[] NOT NULL DEFAULT '{}',
  for_agent       text,
  created_by      text NOT NULL,
  state           text NOT NULL CHECK (state IN ('queued', 'claimed', 'completed', 'failed', 'cancelled', 'expired')),
  claimed_by      text,
  claim_id        text,
  lease_until     bigint,
  attempts        integer NOT NULL DEFAULT 0,
  result_status   text CHECK (result_status IN ('completed', 'failed')),
  -- JSON text, not jsonb: the result comes back exactly as it was submitted.
  result          text,
  result_hash     text,
  created_at      bigint NOT NULL,
  updated_at      bigint NOT NULL,
  expires_at      bigint NOT NULL,
  idempotency_key text,
  payload_hash    text NOT NULL,
  -- The current claim's session (MCP) and lease length; how the last claim ended.
  claim_session   text,
  claim_lease_ms  integer,
  claim_end       text CHECK (claim_end IN ('lapsed', 'released', 'submitted', 'cancelled', 'expired', 'session_ended'))
);

CREATE UNIQUE INDEX tasks_idempotency ON tasks (board, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- claim-next and the inbox walk only queued rows, in priority then age order.
CREATE INDEX tasks_queue ON tasks (board, priority, created_at, id) WHERE state = 'queued';
-- Lazy expiry's read-only check must be an index probe, not a scan of history.
CREATE INDEX tasks_lease_due ON tasks (lease_until) WHERE state = 'claimed';
CREATE INDEX tasks_ttl_due ON tasks (expires_at) WHERE state IN ('queued', 'claimed');
CREATE INDEX tasks_private ON tasks (for_agent, board, priority, created_at) WHERE state = 'queued' AND for_agent IS NOT NULL;
CREATE INDEX tasks_holder ON tasks (claimed_by, board) WHERE state = 'claimed';
CREATE INDEX tasks_board_created ON tasks (board, created_at, id);
CREATE INDEX tasks_session ON tasks (claim_session) WHERE state = 'claimed' AND claim_session IS NOT NULL;

CREATE TABLE artifacts (
  task_id      text NOT NULL REFERENCES tasks (id),
  artifact_id  text NOT NULL,
  name         text NOT NULL,
  content_type text NOT NULL,
  size         integer NOT NULL,
  sha256       text NOT NULL,
  bytes        bytea NOT NULL,
  claim_id     text NOT NULL,
  created_at   bigint NOT NULL,
  PRIMARY KEY (task_id, artifact_id)
);

-- The audit trail and the source of every push; seq is the SSE event id.
-- Writers append under one transaction-scoped advisory lock held until commit
-- (see tx.ts), so seq order is commit order: a reader that has seen seq N has
-- seen everything before it, which LISTEN/NOTIFY catch-up and cursors rely on.
CREATE TABLE events (
  seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  board   text NOT NULL,
  type    text NOT NULL,
  task_id text,
  lock_id text,
  agent   text,
  at      bigint NOT NULL,
  data    text NOT NULL DEFAULT '{}'
);
CREATE INDEX events_board ON events (board, seq);
CREATE INDEX events_agent ON events (agent, at);
