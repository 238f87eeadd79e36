-- One round trip per submit (issue 15): the common submit — the current claim, nothing due, no file locks
-- on the claim, no dependents or parent to tell — as one server-side call. It answers 'slow' (having changed
-- nothing) for anything else, and the daemon takes the general path (postgres-store.ts), which moves due
-- rows, frees locks, counts down dependents, explains losses and replays.
--
-- Each statement of a plpgsql function takes a fresh snapshot (READ COMMITTED): the dependents are looked
-- for after the UPDATE holds the task's row lock, which is the lock set_deps takes on a blocker before it
-- adds an edge (deps.ts), so no edge can be added unseen; if there is one, the function raises CO001 and
-- the statement (the UPDATE with it) is undone.
CREATE FUNCTION coord_submit(p_task_id text, p_claim_id text, p_status text, p_result text, p_hash text,
                             p_now bigint)
RETURNS TABLE (outcome text, task tasks, event_seq bigint, event_at bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_now bigint := COALESCE(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  v_row tasks;
  v_seq bigint;
  v_event json;
  v_full text;
BEGIN
  -- Lazy expiry (SPEC §2): anything due is moved by the general path first. min() over the partial
  -- indexes, as in due.ts.
  IF COALESCE((SELECT min(lease_until) FROM tasks WHERE state = 'claimed') <= v_now
       OR (SELECT min(expires_at) FROM tasks WHERE state IN ('queued', 'claimed')) <= v_now, false)
     OR EXISTS (SELECT 1 FROM locks WHERE claim_id = p_claim_id) THEN
    RETURN QUERY SELECT 'slow'::text, NULL::tasks, NULL::bigint, v_now;
    RETURN;
  END IF;
  -- Rule 5: the fenced UPDATE, exactly as fenced.ts writes it.
  UPDATE tasks SET state = p_status, result_status = p_status, result = p_result, result_hash = p_hash,
         lease_until = NULL, claim_session = NULL, claim_end = 'submitted', updated_at = v_now
   WHERE id = p_task_id AND state = 'claimed' AND claim_id = p_claim_id AND lease_until > v_now
   RETURNING * INTO v_row;
  IF NOT FOUND THEN
    -- A loss to explain, or a replay: the general path reads the row.
    RETURN QUERY SELECT 'slow'::text, NULL::tasks, NULL::bigint, v_now;
    RETURN;
  END IF;
  IF v_row.state = 'completed'
     AND (v_row.parent IS NOT NULL OR EXISTS (SELECT 1 FROM task_deps WHERE blocker_id = p_task_id)) THEN
    RAISE EXCEPTION 'coord: submit has dependents' USING ERRCODE = 'CO001';
  END IF;
  -- The event under the events lock (tx.ts: seq order is commit order), and the NOTIFY every daemon hears.
  PERFORM pg_advisory_xact_lock(hashtext('coord.events'), hashtext(current_schema()));
  INSERT INTO events (board, type, task_id, agent, at, data)
  VALUES (v_row.board, CASE WHEN p_status = 'completed' THEN 'task.completed' ELSE 'task.failed' END, v_row.id,
          v_row.claimed_by, v_now, json_build_object('fence', v_row.attempts)::text)
  RETURNING seq INTO v_seq;
  SELECT row_to_json(e) INTO v_event FROM events AS e WHERE e.seq = v_seq;
  v_full := json_build_object('schema', current_schema(), 'seq', v_seq, 'events', json_build_array(v_event))::text;
  PERFORM pg_notify('coord_events', CASE WHEN octet_length(v_full) < 7900 THEN v_full
                    ELSE json_build_object('schema', current_schema(), 'seq', v_seq)::text END);
  RETURN QUERY SELECT 'done'::text, v_row, v_seq, v_now;
END
$$;

-- One round trip per claim-next. Its looks come first and are plain reads (an empty claim-next takes no
-- row lock and no write lock: SPEC §2); only a claimable candidate is locked (FOR UPDATE SKIP LOCKED:
-- workers pass over rows others are claiming) and claimed by the same conditional UPDATE as claim-next.ts.
-- outcome: 'done' (task, event), 'due' (the general path moves due rows, then looks again), 'none' (nothing
-- to claim), 'retry' (others took every candidate first: look again).
CREATE FUNCTION coord_claim_next(p_board text, p_agent text, p_kinds text[], p_labels text[], p_claim_id text,
                                 p_lease_ms bigint, p_session text, p_now bigint)
RETURNS TABLE (outcome text, task tasks, event_seq bigint, event_at bigint, event_data text)
LANGUAGE plpgsql AS $$
DECLARE
  v_now bigint := COALESCE(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  v_id text;
  v_row tasks;
  v_seq bigint;
  v_data text;
  v_event json;
  v_full text;
BEGIN
  IF COALESCE((SELECT min(lease_until) FROM tasks WHERE state = 'claimed') <= v_now
       OR (SELECT min(expires_at) FROM tasks WHERE state IN ('queued', 'claimed')) <= v_now, false) THEN
    RETURN QUERY SELECT 'due'::text, NULL::tasks, NULL::bigint, v_now, NULL::text;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM tasks AS t
                 WHERE t.board = p_board AND t.state = 'queued' AND t.blockers_open = 0 AND t.expires_at > v_now
                   AND (t.for_agent IS NULL OR t.for_agent = p_agent)
                   AND (cardinality(p_kinds) = 0 OR t.kind = ANY (p_kinds))
                   AND (cardinality(p_labels) = 0 OR t.labels && p_labels)) THEN
    RETURN QUERY SELECT 'none'::text, NULL::tasks, NULL::bigint, v_now, NULL::text;
    RETURN;
  END IF;
  SELECT t.id INTO v_id FROM tasks AS t
   WHERE t.board = p_board AND t.state = 'queued' AND t.blockers_open = 0 AND t.expires_at > v_now
     AND (t.for_agent IS NULL OR t.for_agent = p_agent)
     AND (cardinality(p_kinds) = 0 OR t.kind = ANY (p_kinds))
     AND (cardinality(p_labels) = 0 OR t.labels && p_labels)
   ORDER BY t.priority, t.created_at, t.id LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF v_id IS NULL THEN
    RETURN QUERY SELECT 'retry'::text, NULL::tasks, NULL::bigint, v_now, NULL::text;
    RETURN;
  END IF;
  UPDATE tasks SET state = 'claimed', claimed_by = p_agent, claim_id = p_claim_id, lease_until = v_now + p_lease_ms,
         attempts = attempts + 1, updated_at = v_now, claim_session = p_session, claim_lease_ms = p_lease_ms,
         claim_end = NULL
   WHERE id = v_id AND state = 'queued' AND blockers_open = 0
   RETURNING * INTO v_row;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'retry'::text, NULL::tasks, NULL::bigint, v_now, NULL::text;
    RETURN;
  END IF;
  v_data := json_build_object('fence', v_row.attempts, 'lease_until',
              to_char(timestamp 'epoch' + v_row.lease_until * interval '1 millisecond',
                      'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text;
  PERFORM pg_advisory_xact_lock(hashtext('coord.events'), hashtext(current_schema()));
  INSERT INTO events (board, type, task_id, agent, at, data)
  VALUES (v_row.board, 'task.claimed', v_row.id, v_row.claimed_by, v_now, v_data)
  RETURNING seq INTO v_seq;
  SELECT row_to_json(e) INTO v_event FROM events AS e WHERE e.seq = v_seq;
  v_full := json_build_object('schema', current_schema(), 'seq', v_seq, 'events', json_build_array(v_event))::text;
  PERFORM pg_notify('coord_events', CASE WHEN octet_length(v_full) < 7900 THEN v_full
                    ELSE json_build_object('schema', current_schema(), 'seq', v_seq)::text END);
  RETURN QUERY SELECT 'done'::text, v_row, v_seq, v_now, v_data;
END
$$;
