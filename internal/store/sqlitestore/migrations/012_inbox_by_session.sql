-- An inbox item is its session's: the table is keyed by (session_id, id)
-- without a row id, so an item's insert and delete write one B-tree instead
-- of the table and its session index. Ids are still given in the order items
-- are queued, across sessions (the store counts them from the highest one
-- present when it opens), so the oldest work is still claimed first.
CREATE TABLE inbox_new (
  session_id TEXT NOT NULL,
  id         INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  turn_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
INSERT INTO inbox_new (session_id, id, kind, turn_id, created_at) SELECT session_id, id, kind, turn_id, created_at FROM inbox;
DROP TABLE inbox;
ALTER TABLE inbox_new RENAME TO inbox;
