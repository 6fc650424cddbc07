-- Checks whose failure must stop the transaction in the server: a
-- compare-and-set or the lease check, sent in one pipeline with the writes
-- after it and COMMIT. A statement calls one of these only when its check
-- failed; the error makes PostgreSQL skip the rest of the pipeline, COMMIT
-- included. Codes: RA404 no such row, RA409 the row is in another state,
-- RA410 the lease is lost (pipeline.go maps them to the store's errors).
CREATE FUNCTION rtcagent_fail(code text, what text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%', what USING ERRCODE = code;
END
$$;

-- A compare-and-set of the row id of table tbl found nothing to update: is
-- the row gone, or in another state?
CREATE FUNCTION rtcagent_cas_failed(tbl text, id text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  found boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE id = $1)', tbl) INTO found USING id;
  IF found THEN
    RAISE EXCEPTION 'update % %: changed concurrently', tbl, id USING ERRCODE = 'RA409';
  END IF;
  RAISE EXCEPTION 'update % %: not found', tbl, id USING ERRCODE = 'RA404';
END
$$;
