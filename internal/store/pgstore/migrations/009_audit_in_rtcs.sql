-- An RTC's audit record is its own row: the call with the state of its record
-- it carries (audit_state in its data). A row is audited while it holds a
-- record retention has not pruned; created_at and ended_at are the record's
-- times, for listing since a time and pruning. A call stored before RTCs
-- carried their record's state takes it from its record after this file
-- (moveAuditState, in Go: PostgreSQL's JSON functions refuse escapes such as
-- \u0000 in a call's output, and jsonb would rewrite its bytes).
ALTER TABLE rtcs ADD COLUMN audited BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN created_at TIMESTAMPTZ, ADD COLUMN ended_at TIMESTAMPTZ;
UPDATE rtcs SET audited = true, created_at = a.created_at, ended_at = a.ended_at
  FROM audit a WHERE a.rtc_id = rtcs.id;
-- Nodes of the earlier release may still run while the first node of this one
-- migrates: they insert RTCs without these columns (so a call they create is
-- audited, from now) and write their records to the audit table, which stays
-- until a later release drops it. New nodes neither read nor write it.
ALTER TABLE rtcs ALTER COLUMN audited SET DEFAULT true, ALTER COLUMN created_at SET DEFAULT now();
CREATE INDEX rtcs_user ON rtcs (user_id, ord) WHERE audited;
CREATE INDEX rtcs_audit_ended ON rtcs (ended_at) WHERE audited AND ended_at IS NOT NULL;
