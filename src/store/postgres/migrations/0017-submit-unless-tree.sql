-- Issue 36: a submit naming no work tree no longer reads the claim's work tree first (one round trip less per
-- job). Core passes p_unless_tree instead: when the claim recorded a work tree (SPEC §14 "Verified done"),
-- nothing is written and the outcome is 'tree' with the row, so core asks git and submits again. And it says
-- whether the task has an integration (SPEC §15), so its answer's `{state: "none"}` needs no second look. The
-- rest is 0013's function unchanged.
DROP FUNCTION coord_submit(text, text, text, text, text, bigint);
CREATE FUNCTION coord_submit(p_task_id text, p_claim_id text, p_status text, p_result text, p_hash text,
                             p_now bigint, p_unless_tree boolean)
RETURNS TABLE (outcome text, task tasks, event_seq bigint, event_at bigint, integrated boolean)
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
  -- Rule 5: the fenced UPDATE, exactly as fenced.ts writes it (TREE_KNOWN held back when asked).
  UPDATE tasks SET state = p_status, result_status = p_status, result = p_result, result_hash = p_hash,
         lease_until = NULL, claim_session = NULL, claim_end = 'submitted', updated_at = event_at,
         landed_at = CASE WHEN p_status = 'completed' THEN event_at END
   WHERE id = p_task_id AND state = 'claimed' AND claim_id = p_claim_id AND lease_until > event_at
     AND NOT (p_unless_tree AND COALESCE(claim_tree_of = claim_id AND claim_worktree IS NOT NULL, false))
   RETURNING * INTO task;
  IF NOT FOUND THEN
    -- The live claim recorded a work tree: core verifies it first (nothing written).
    IF p_unless_tree THEN
      SELECT * INTO task FROM tasks t
       WHERE t.id = p_task_id AND t.state = 'claimed' AND t.claim_id = p_claim_id AND t.lease_until > event_at
         AND t.claim_tree_of = t.claim_id AND t.claim_worktree IS NOT NULL;
      IF FOUND THEN
        outcome := 'tree';
        RETURN NEXT;
        RETURN;
      END IF;
    END IF;
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
  integrated := EXISTS (SELECT 1 FROM integrations WHERE task_id = p_task_id);
  outcome := 'done';
  RETURN NEXT;
END
$$;
