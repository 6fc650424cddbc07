-- A turn's calls by seq, without whether each is open: a call's end changes
-- its row and no entry of this index. The writer knows the open calls of the
-- turns it wrote (known_lists.go); a read of them checks each call's row.
DROP INDEX rtcs_turn;
CREATE INDEX rtcs_turn ON rtcs(turn_id, seq);
