-- An RTC's audit record is its own row: the call with the state of its record
-- it carries (audit_state in its data). The audit table, a second copy of
-- every call's arguments and result written at each change, goes. A row is
-- audited while it holds a record retention has not pruned; created_at and
-- ended_at are the record's times, for listing since a time and pruning.
ALTER TABLE rtcs ADD COLUMN audited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rtcs ADD COLUMN created_at INTEGER;
ALTER TABLE rtcs ADD COLUMN ended_at INTEGER;
-- A call stored before RTCs carried their record's state takes it from its
-- record (the fields of the record that are not the call's own).
UPDATE rtcs SET audited = 1, created_at = a.created_at, ended_at = a.ended_at,
  data = CASE WHEN json_type(CAST(rtcs.data AS TEXT), '$.audit_state') = 'object' THEN rtcs.data
    ELSE json_set(CAST(rtcs.data AS TEXT), '$.audit_state', json_remove(CAST(a.data AS TEXT), '$.rtc_id', '$.user_id',
      '$.session_id', '$.turn_id', '$.tool_name', '$.tool_call_id', '$.arguments', '$.status', '$.output', '$.error',
      '$.created_at', '$.trace_id')) END
  FROM audit a WHERE a.rtc_id = rtcs.id;
DROP TABLE audit;
CREATE INDEX rtcs_user ON rtcs(user_id, ord) WHERE audited;
CREATE INDEX rtcs_audit_ended ON rtcs(ended_at) WHERE audited AND ended_at IS NOT NULL;
