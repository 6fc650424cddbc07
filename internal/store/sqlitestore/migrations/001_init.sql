CREATE TABLE user_streams (
  user_id TEXT PRIMARY KEY,
  epoch   TEXT NOT NULL,
  top     INTEGER NOT NULL,
  floor   INTEGER NOT NULL
);
CREATE TABLE updates (
  user_id    TEXT NOT NULL,
  offset     INTEGER NOT NULL,
  payload    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, offset)
) WITHOUT ROWID;
CREATE INDEX updates_created ON updates(created_at);

CREATE TABLE sessions (
  ord     INTEGER PRIMARY KEY AUTOINCREMENT,
  id      TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  data    TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id, ord);

CREATE TABLE turns (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  status     TEXT NOT NULL,
  data       TEXT NOT NULL
);
CREATE UNIQUE INDEX turns_session ON turns(session_id, seq);

CREATE TABLE messages (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  status     TEXT NOT NULL,
  client_id  TEXT,
  data       TEXT NOT NULL
);
CREATE UNIQUE INDEX messages_session ON messages(session_id, seq);
CREATE UNIQUE INDEX messages_client ON messages(user_id, client_id) WHERE client_id IS NOT NULL;

CREATE TABLE rtcs (
  ord         INTEGER PRIMARY KEY AUTOINCREMENT,
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
CREATE INDEX rtcs_turn ON rtcs(turn_id, seq);
CREATE INDEX rtcs_session ON rtcs(session_id, ord);
CREATE INDEX rtcs_user_open ON rtcs(user_id, ord) WHERE open = 1;
CREATE INDEX rtcs_deadline ON rtcs(deadline_at) WHERE open = 1 AND deadline_at IS NOT NULL;

CREATE TABLE inbox (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  turn_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX inbox_session ON inbox(session_id, id);

CREATE TABLE leases (
  session_id TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  token      INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);

CREATE TABLE checkpoints (
  turn_id    TEXT PRIMARY KEY,
  data       TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
