-- A Topic update carries the changes of one commit: {offset, epoch, changes:
-- [{type, data}]}. Stored updates of one change each take that form (json,
-- not jsonb, keeps each entity's bytes).
UPDATE updates SET payload = json_build_object('offset', off, 'epoch', payload::json ->> 'epoch',
  'changes', json_build_array(json_build_object('type', payload::json ->> 'type', 'data', payload::json -> 'data')))::text
WHERE payload::json -> 'changes' IS NULL;

-- A waiting turn's checkpoint is stored with the turn (its row's "checkpoint",
-- never sent), so suspending and resuming write and read no other row.
UPDATE turns t SET data = (t.data::jsonb || jsonb_build_object('checkpoint', jsonb_build_object(
    'expires_at', to_char(c.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'data', c.data::jsonb)))::text
FROM checkpoints c WHERE c.turn_id = t.id;
DROP TABLE checkpoints;
