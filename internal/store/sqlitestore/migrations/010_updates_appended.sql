-- Topic updates in the order they are written (a row id, each new row at the
-- end of the table) with a unique index on (user_id, offset) for reads: an
-- append writes the table's last page and one small index entry, instead of
-- splitting leaves of a table ordered by user, whose neighbours the writer
-- had to read back from disk.
CREATE TABLE updates_new (
  id         INTEGER PRIMARY KEY,
  user_id    TEXT NOT NULL,
  offset     INTEGER NOT NULL,
  payload    TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO updates_new (user_id, offset, payload, created_at)
  SELECT user_id, offset, payload, created_at FROM updates ORDER BY created_at, user_id, offset;
DROP TABLE updates;
ALTER TABLE updates_new RENAME TO updates;
CREATE UNIQUE INDEX updates_user_offset ON updates(user_id, offset);
