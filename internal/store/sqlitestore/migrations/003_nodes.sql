-- One liveness record per node (lease holder), renewed about every second. A
-- lease whose holder's record expired is free to take however long the lease
-- itself still runs: a restarted process takes over within the node TTL.
CREATE TABLE nodes (
  node_id    TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
