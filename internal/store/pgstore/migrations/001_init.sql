-- The SQLite schema (sqlitestore/migrations) translated to PostgreSQL.
-- Data columns are TEXT, not JSONB: the JSON written is read back byte for byte
-- (JSONB reorders keys and rewrites numbers); query them with data::jsonb.
-- Times are TIMESTAMPTZ, written from the store's clock (Options.Now), never now().

-- One row per user: the Topic stream's epoch and last assigned offset. Writers lock
-- it (SELECT … FOR UPDATE) to assign offsets, which serialises a user's writers.
CREATE TABLE user_streams (
  user_id TEXT PRIMARY KEY,
  epoch   TEXT NOT NULL,
  top     BIGINT NOT NULL,
  floor   BIGINT NOT NULL
);

-- "offset" is a reserved word in PostgreSQL, hence "off".
CREATE TABLE updates (
  user_id    TEXT NOT NULL,
  off        BIGINT NOT NULL,
  payload    TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (user_id, off)
);
CREATE INDEX updates_created ON updates (created_at);

CREATE TABLE sessions (
  ord     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id      TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  data    TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id, ord);

-- The (session_id, seq) indexes are named: a violation of one is a lost race on
-- MAX(seq)+1 and the store retries the transaction (pgstore.go, retryable).
CREATE TABLE turns (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  seq        BIGINT NOT NULL,
  status     TEXT NOT NULL,
  data       TEXT NOT NULL
);
CREATE UNIQUE INDEX turns_session_seq ON turns (session_id, seq);

CREATE TABLE messages (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  seq        BIGINT NOT NULL,
  status     TEXT NOT NULL,
  client_id  TEXT,
  data       TEXT NOT NULL
);
CREATE UNIQUE INDEX messages_session_seq ON messages (session_id, seq);
CREATE UNIQUE INDEX messages_client ON messages (user_id, client_id) WHERE client_id IS NOT NULL;

CREATE TABLE rtcs (
  ord         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  session_id  TEXT NOT NULL,
  turn_id     TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  seq         BIGINT NOT NULL,
  status      TEXT NOT NULL,
  open        BOOLEAN NOT NULL,
  deadline_at TIMESTAMPTZ,
  data        TEXT NOT NULL
);
CREATE INDEX rtcs_turn ON rtcs (turn_id, seq);
CREATE INDEX rtcs_session ON rtcs (session_id, ord);
CREATE INDEX rtcs_user_open ON rtcs (user_id, ord) WHERE open;
CREATE INDEX rtcs_deadline ON rtcs (deadline_at) WHERE open AND deadline_at IS NOT NULL;

CREATE TABLE inbox (
  id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  turn_id    TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX inbox_session ON inbox (session_id, id);

-- A released lease keeps its row (expires_at in the past) so the token only grows.
CREATE TABLE leases (
  session_id TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  token      BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE checkpoints (
  turn_id    TEXT PRIMARY KEY,
  data       TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);

-- key 'epoch': the initial epoch of every user stream, fixed per database.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
