-- Row ids without AUTOINCREMENT: a new row takes the highest id plus one, so
-- inserts no longer write SQLite's sequence table. Sessions and RTCs are never
-- deleted, so their order numbers are never given twice; an inbox item's or an
-- audit record's id may be given again once the row with the highest id was
-- deleted (only the lease holder deletes inbox items, and audit pages go by RTC
-- id), and new rows still sort after every row present.
CREATE TABLE sessions_new (
  ord     INTEGER PRIMARY KEY,
  id      TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  data    TEXT NOT NULL
);
INSERT INTO sessions_new (ord, id, user_id, data) SELECT ord, id, user_id, data FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_new RENAME TO sessions;
CREATE INDEX sessions_user ON sessions(user_id, ord);

CREATE TABLE rtcs_new (
  ord         INTEGER PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  session_id  TEXT NOT NULL,
  turn_id     TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  status      TEXT NOT NULL,
  open        INTEGER NOT NULL,
  deadline_at INTEGER,
  data        TEXT NOT NULL
);
INSERT INTO rtcs_new (ord, id, session_id, turn_id, user_id, seq, status, open, deadline_at, data)
  SELECT ord, id, session_id, turn_id, user_id, seq, status, open, deadline_at, data FROM rtcs;
DROP TABLE rtcs;
ALTER TABLE rtcs_new RENAME TO rtcs;
CREATE INDEX rtcs_turn ON rtcs(turn_id, seq);
CREATE INDEX rtcs_session ON rtcs(session_id, ord);
CREATE INDEX rtcs_user_open ON rtcs(user_id, ord) WHERE open = 1;
CREATE INDEX rtcs_deadline ON rtcs(deadline_at) WHERE open = 1 AND deadline_at IS NOT NULL;

CREATE TABLE inbox_new (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  turn_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO inbox_new (id, session_id, kind, turn_id, created_at) SELECT id, session_id, kind, turn_id, created_at FROM inbox;
DROP TABLE inbox;
ALTER TABLE inbox_new RENAME TO inbox;
CREATE INDEX inbox_session ON inbox(session_id, id);

CREATE TABLE audit_new (
  ord        INTEGER PRIMARY KEY,
  rtc_id     TEXT NOT NULL UNIQUE,
  user_id    TEXT NOT NULL,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  ended_at   INTEGER,
  data       TEXT NOT NULL
);
INSERT INTO audit_new (ord, rtc_id, user_id, session_id, created_at, ended_at, data)
  SELECT ord, rtc_id, user_id, session_id, created_at, ended_at, data FROM audit;
DROP TABLE audit;
ALTER TABLE audit_new RENAME TO audit;
CREATE INDEX audit_user ON audit(user_id, ord);
CREATE INDEX audit_session ON audit(session_id, ord);
CREATE INDEX audit_created ON audit(created_at);
CREATE INDEX audit_ended ON audit(ended_at) WHERE ended_at IS NOT NULL;
