-- File locks (SPEC rules 10, 11, 13), the twin of sqlite/migrations/0002-locks.sql.
-- One row per lock; its resource keys in lock_resources. A plain lock is live
-- while lease_until > now. A lock taken with a claim (claim_id set) is live
-- exactly while that claim is: its task is claimed under the same claim_id
-- with a live lease; its own lease_until is then unused. Expired rows stop
-- conflicting at once and are deleted lazily.
CREATE TABLE locks (
  lock_id     text PRIMARY KEY,
  board       text NOT NULL,
  agent       text NOT NULL,
  lease_until bigint NOT NULL,
  lease_ms    integer NOT NULL,
  task_id     text REFERENCES tasks (id),
  claim_id    text,
  session_id  text,
  created_at  bigint NOT NULL,
  CHECK ((task_id IS NULL) = (claim_id IS NULL))
);

CREATE INDEX locks_board ON locks (board, created_at);
-- Ending a claim or a session frees its locks by these.
CREATE INDEX locks_claim ON locks (claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX locks_session ON locks (session_id) WHERE session_id IS NOT NULL;
-- Lazy cleanup's probe for lapsed plain locks.
CREATE INDEX locks_lease_due ON locks (lease_until) WHERE claim_id IS NULL;

-- Canonical keys (core/paths.ts): `dir/` covers every key that starts with it.
-- The primary key serves the conflict check as index probes: the key and its
-- ancestor directories by equality, a directory's contents by a range. The
-- range [`dir/`, `dir0`) needs byte order, so the column is COLLATE "C"
-- whatever the database's locale.
CREATE TABLE lock_resources (
  board    text NOT NULL,
  resource text COLLATE "C" NOT NULL,
  lock_id  text NOT NULL REFERENCES locks (lock_id) ON DELETE CASCADE,
  PRIMARY KEY (board, resource, lock_id)
);

CREATE INDEX lock_resources_lock ON lock_resources (lock_id);
