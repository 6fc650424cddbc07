-- A turn's calls and its open ones are one index, by turn, then open, then
-- seq: a new call writes one entry where it wrote two, and the open calls
-- of a turn are still the lookup of a range.
DROP INDEX rtcs_turn_open;
DROP INDEX rtcs_turn;
CREATE INDEX rtcs_turn ON rtcs(turn_id, open, seq);
