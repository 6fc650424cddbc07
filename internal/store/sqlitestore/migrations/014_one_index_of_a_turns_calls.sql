-- A turn's calls and its open ones are one index, by turn, then seq, with
-- whether the call is open: a new call writes one entry where it wrote two.
-- A turn's calls are a range of it in seq order; its open ones are that
-- range's entries that say open, read from the index alone.
DROP INDEX rtcs_turn_open;
DROP INDEX rtcs_turn;
CREATE INDEX rtcs_turn ON rtcs(turn_id, seq, open);
