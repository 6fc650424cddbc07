-- Retention prunes each user's stream from its oldest update (UpdatePrune), so
-- the age of updates needs no index of its own: every append wrote to it.
DROP INDEX updates_created;
