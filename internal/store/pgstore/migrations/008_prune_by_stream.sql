-- Retention deletes each stream's oldest updates from its floor, on the
-- primary key: the index on the age of updates, which every append wrote,
-- goes.
DROP INDEX updates_created;
