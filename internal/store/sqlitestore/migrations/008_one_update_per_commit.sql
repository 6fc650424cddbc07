-- A Topic update carries the changes of one commit: {offset, epoch, changes:
-- [{type, data}]}. Stored updates of one change each take that form.
UPDATE updates SET payload = json_object('offset', payload ->> '$.offset', 'epoch', payload ->> '$.epoch',
  'changes', json_array(json_object('type', payload ->> '$.type', 'data', payload -> '$.data')))
WHERE payload -> '$.changes' IS NULL;

-- A waiting turn's checkpoint is stored with the turn (its row's "checkpoint",
-- never sent), so suspending and resuming write and read no other row.
UPDATE turns SET data = json_set(turns.data, '$.checkpoint', json_object(
    'expires_at', strftime('%Y-%m-%dT%H:%M:%fZ', c.expires_at / 1000.0, 'unixepoch'),
    'data', json(c.data)))
FROM checkpoints c WHERE c.turn_id = turns.id;
DROP TABLE checkpoints;
