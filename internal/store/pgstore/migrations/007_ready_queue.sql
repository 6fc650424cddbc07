-- The claim pass reads a queue of the sessions whose work waits for a claim
-- instead of the whole inbox, so a node does not look at the sessions other
-- nodes hold. A session is in it from the commit that queued work without
-- holding its lease (or gave the lease back with work left) until a claim
-- takes its lease or its holder finishes an item. Work whose holder died is
-- found through its lease: expired and not released, or held by a node whose
-- liveness record expired. gen counts the times work was queued: a delete
-- takes the row off only at the gen its statement saw, so work queued by a
-- transaction that committed meanwhile keeps it on.
CREATE TABLE ready (
  session_id TEXT PRIMARY KEY,
  since      TIMESTAMPTZ NOT NULL DEFAULT now(), -- the database's clock: the queue's order
  gen        BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX ready_since ON ready (since);
-- Leases that were not given back (a released lease expires at 'epoch').
CREATE INDEX leases_unreleased ON leases (expires_at) WHERE expires_at > 'epoch';
CREATE INDEX leases_holder ON leases (holder) WHERE expires_at > 'epoch';
CREATE INDEX nodes_expiry ON nodes (expires_at);
