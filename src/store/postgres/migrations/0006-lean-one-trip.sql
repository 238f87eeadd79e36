-- The one-round-trip functions of 0005, the same contract in fewer statements (issue 15, the PostgreSQL
-- CPU per job). Every statement a plpgsql function runs is a full SPI execution (snapshot, plan-cache check,
-- executor start with every index of the table opened, executor end), so the time goes with the number of
-- statements more than with what they do: claim-next ran nine and submit eight. Now:
--   claim-next: the look (due probe + is there a candidate, one read) · the claim (pick + conditional UPDATE,
--               one statement) · the event (events lock + INSERT + its NOTIFY payload, one statement) · NOTIFY;
--   submit:     the look (due probe + the claim's file locks, one read) · the fenced UPDATE · the dependents
--               check (its own statement, after the row lock: see 0005) · the event · NOTIFY.
-- The answers are set as OUT values and returned with RETURN NEXT (no query of their own).
-- plan_cache_mode = force_generic_plan: a plpgsql statement's plan is cached per connection, but the plan
-- cache re-plans a custom plan on every call while the generic plan's estimate looks dearer than the custom
-- ones — which it did for the claim (pick + UPDATE): planning it each time was half of claim-next's time
-- (583 → 279 µs per call here). The generic plans are the ones the tests EXPLAIN (test/postgres/store.test.ts).
-- Same signatures,
-- same results, so a daemon of the previous version keeps working on a migrated database.

CREATE OR REPLACE FUNCTION coord_submit(p_task_id text, p_claim_id text, p_status text, p_result text, p_hash text,
                                        p_now bigint)
RETURNS TABLE (outcome text, task tasks, event_seq bigint, event_at bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_full text;
BEGIN
  event_at := COALESCE(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  -- Lazy expiry (SPEC §2): anything due is moved by the general path first (min() over the partial indexes,
  -- as in due.ts); so are the claim's file locks (rule 10).
  IF COALESCE((SELECT min(lease_until) FROM tasks WHERE state = 'claimed') <= event_at
       OR (SELECT min(expires_at) FROM tasks WHERE state IN ('queued', 'claimed')) <= event_at, false)
     OR EXISTS (SELECT 1 FROM locks WHERE claim_id = p_claim_id) THEN
    outcome := 'slow';
    RETURN NEXT;
    RETURN;
  END IF;
  -- Rule 5: the fenced UPDATE, exactly as fenced.ts writes it.
  UPDATE tasks SET state = p_status, result_status = p_status, result = p_result, result_hash = p_hash,
         lease_until = NULL, claim_session = NULL, claim_end = 'submitted', updated_at = event_at
   WHERE id = p_task_id AND state = 'claimed' AND claim_id = p_claim_id AND lease_until > event_at
   RETURNING * INTO task;
  IF NOT FOUND THEN
    -- A loss to explain, or a replay: the general path reads the row.
    outcome := 'slow';
    RETURN NEXT;
    RETURN;
  END IF;
  -- A fresh snapshot, after the UPDATE holds the row lock that set_deps takes before it adds an edge (0005).
  IF task.state = 'completed'
     AND (task.parent IS NOT NULL OR EXISTS (SELECT 1 FROM task_deps WHERE blocker_id = p_task_id)) THEN
    RAISE EXCEPTION 'coord: submit has dependents' USING ERRCODE = 'CO001';
  END IF;
  -- The event under the events lock (tx.ts: seq order is commit order; the lock is taken before the seq is
  -- drawn), and the NOTIFY every daemon hears, built from the row as inserted.
  INSERT INTO events AS e (board, type, task_id, agent, at, data)
  SELECT task.board, CASE WHEN p_status = 'completed' THEN 'task.completed' ELSE 'task.failed' END, task.id,
         task.claimed_by, event_at, json_build_object('fence', task.attempts)::text
    FROM (SELECT pg_advisory_xact_lock(hashtext('coord.events'), hashtext(current_schema()))) AS serial
  RETURNING e.seq, json_build_object('schema', current_schema(), 'seq', e.seq, 'events', json_build_array(row_to_json(e)))::text
  INTO event_seq, v_full;
  PERFORM pg_notify('coord_events', CASE WHEN octet_length(v_full) < 7900 THEN v_full
                    ELSE json_build_object('schema', current_schema(), 'seq', event_seq)::text END);
  outcome := 'done';
  RETURN NEXT;
END
$$;

-- Its looks stay plain reads (an empty claim-next takes no row lock and no write lock: SPEC §2); only a
-- claimable candidate is locked (FOR UPDATE SKIP LOCKED) and claimed, in one UPDATE that re-checks it. The
-- pick is a scalar subquery (evaluated once), not a join: a joined pick is re-run by the concurrent-update
-- recheck and can hand the UPDATE a second row.
-- outcome: 'done' (task, event), 'due' (the general path moves due rows, then looks again), 'none' (nothing
-- to claim), 'retry' (others took every candidate first: look again).
CREATE OR REPLACE FUNCTION coord_claim_next(p_board text, p_agent text, p_kinds text[], p_labels text[],
                                            p_claim_id text, p_lease_ms bigint, p_session text, p_now bigint)
RETURNS TABLE (outcome text, task tasks, event_seq bigint, event_at bigint, event_data text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_full text;
BEGIN
  event_at := COALESCE(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  -- The look: due probe (as in due.ts), then whether this agent has anything to claim: the first candidate in
  -- the pick's own order, so that its generic plan walks tasks_ready as the pick does (an EXISTS was planned
  -- on tasks_ttl_due, reading every live task of every board past the first candidate).
  SELECT CASE
           WHEN COALESCE((SELECT min(lease_until) FROM tasks WHERE state = 'claimed') <= event_at
                  OR (SELECT min(expires_at) FROM tasks WHERE state IN ('queued', 'claimed')) <= event_at, false)
             THEN 'due'
           WHEN (SELECT t.id FROM tasks AS t
                  WHERE t.board = p_board AND t.state = 'queued' AND t.blockers_open = 0
                    AND t.expires_at > event_at AND (t.for_agent IS NULL OR t.for_agent = p_agent)
                    AND (cardinality(p_kinds) = 0 OR t.kind = ANY (p_kinds))
                    AND (cardinality(p_labels) = 0 OR t.labels && p_labels)
                  ORDER BY t.priority, t.created_at, t.id LIMIT 1) IS NULL
             THEN 'none'
         END
    INTO outcome;
  IF outcome IS NOT NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;
  -- The claim: the first candidate nobody else is claiming, and the conditional UPDATE of claim.ts.
  UPDATE tasks AS t
     SET state = 'claimed', claimed_by = p_agent, claim_id = p_claim_id, lease_until = event_at + p_lease_ms,
         attempts = t.attempts + 1, updated_at = event_at, claim_session = p_session, claim_lease_ms = p_lease_ms,
         claim_end = NULL
   WHERE t.id = (SELECT c.id FROM tasks AS c
                  WHERE c.board = p_board AND c.state = 'queued' AND c.blockers_open = 0 AND c.expires_at > event_at
                    AND (c.for_agent IS NULL OR c.for_agent = p_agent)
                    AND (cardinality(p_kinds) = 0 OR c.kind = ANY (p_kinds))
                    AND (cardinality(p_labels) = 0 OR c.labels && p_labels)
                  ORDER BY c.priority, c.created_at, c.id LIMIT 1 FOR UPDATE SKIP LOCKED)
     AND t.state = 'queued' AND t.blockers_open = 0
  RETURNING t.* INTO task;
  IF NOT FOUND THEN
    outcome := 'retry';
    RETURN NEXT;
    RETURN;
  END IF;
  event_data := json_build_object('fence', task.attempts, 'lease_until',
                  to_char(timestamp 'epoch' + task.lease_until * interval '1 millisecond',
                          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text;
  INSERT INTO events AS e (board, type, task_id, agent, at, data)
  SELECT task.board, 'task.claimed', task.id, task.claimed_by, event_at, event_data
    FROM (SELECT pg_advisory_xact_lock(hashtext('coord.events'), hashtext(current_schema()))) AS serial
  RETURNING e.seq, json_build_object('schema', current_schema(), 'seq', e.seq, 'events', json_build_array(row_to_json(e)))::text
  INTO event_seq, v_full;
  PERFORM pg_notify('coord_events', CASE WHEN octet_length(v_full) < 7900 THEN v_full
                    ELSE json_build_object('schema', current_schema(), 'seq', event_seq)::text END);
  outcome := 'done';
  RETURN NEXT;
END
$$;
