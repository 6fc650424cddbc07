-- The open calls are one index, by user and creation, that also holds each
-- call's deadline: a call's start and end write one entry where they wrote
-- two. A user's open calls are a range of it; the deadline sweep reads all
-- of it (the open calls of the one process that writes the file), never the
-- table.
DROP INDEX rtcs_deadline;
DROP INDEX rtcs_user_open;
CREATE INDEX rtcs_open ON rtcs(user_id, ord, deadline_at) WHERE open = 1;
