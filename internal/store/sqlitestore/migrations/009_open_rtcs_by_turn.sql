-- A turn's open calls are looked up at every result: an index of the open
-- ones, so the lookup reads those and not every call the turn ever made.
CREATE INDEX rtcs_turn_open ON rtcs(turn_id, seq) WHERE open = 1;
