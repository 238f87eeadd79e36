-- Issue 31 (SPEC §11): a blocker counts once it has LANDED — completed and, where it has commits, merged.
-- landed_at: when this task's dependents counted it done (their blockers_open went down once); NULL until then.
ALTER TABLE tasks ADD COLUMN landed_at BIGINT;
-- Work completed before this rule already counted on its dependents (the old rule): it has landed.
UPDATE tasks SET landed_at = updated_at WHERE state = 'completed';
-- The rule a board's readiness follows: landed (SPEC §11), or completed (coord target BRANCH --ready-on completed).
ALTER TABLE board_repos ADD COLUMN ready_on TEXT NOT NULL DEFAULT 'landed' CHECK (ready_on IN ('landed', 'completed'));

-- The one-round-trip submit (0006) completes only tasks with no change record, so with no commits: such
-- work has landed at once (SPEC §11). Its only change from 0006 is landed_at in the fenced UPDATE.
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
         lease_until = NULL, claim_session = NULL, claim_end = 'submitted', updated_at = event_at,
         landed_at = CASE WHEN p_status = 'completed' THEN event_at END
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
