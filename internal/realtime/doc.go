// Package realtime runs the Centrifuge node of RTC Agent: connection
// authentication, the server-side subscriptions of each user (topic:u=<id> and
// live:u=<id>), RPC routing to the API, and the relay that publishes committed
// Topic updates.
//
// The database is the Topic channel's history: a wrapping Broker answers History
// for topic channels from the store and stamps each topic publication with the
// offset and epoch the store assigned, so Centrifuge's own recovery, merging and
// gap detection work on the durable stream, across restarts. Updates are published
// after their commit, in commit order (the store calls the commit hook in order and
// the relay publishes from one queue). A publication lost after commit shows up as a
// gap at the next one or at Centrifuge's periodic position check, and the client
// recovers it from the database.
//
// With a Redis URL the node joins a cluster (Centrifuge's Redis broker and
// presence manager); New waits for Redis while it cannot be reached, so nodes and
// their Redis may start in any order.
package realtime
