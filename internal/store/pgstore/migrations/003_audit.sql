-- One audit record per RTC (its arguments, the decision, the outcome and the
-- timings), written in the transactions that change the RTC and kept until the
-- audit retention prunes records of calls that ended before it.
CREATE TABLE audit (
  ord        BIGSERIAL PRIMARY KEY,
  rtc_id     TEXT NOT NULL UNIQUE,
  user_id    TEXT NOT NULL,
  session_id TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  ended_at   TIMESTAMPTZ,
  data       TEXT NOT NULL
);
CREATE INDEX audit_user ON audit(user_id, ord);
CREATE INDEX audit_session ON audit(session_id, ord);
CREATE INDEX audit_created ON audit(created_at);
CREATE INDEX audit_ended ON audit(ended_at) WHERE ended_at IS NOT NULL;
