-- A/B only (DIAG_SQL=bench/coord/no-events-lock.sql node --import tsx bench/coord/pg-diagnose.ts …): the events lock becomes a no-op for the two one-statement functions, so
-- writers never wait for each other — the upper bound of any design that removes that wait (seq order then
-- no longer equals commit order: NOT safe, measurement only).
CREATE FUNCTION pg_advisory_xact_lock(integer, integer) RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$;
DO $$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
           WHERE p.proname IN ('coord_claim_next', 'coord_submit') AND p.pronamespace = current_schema()::regnamespace LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog', f, current_schema());
  END LOOP;
END $$;
