// Package realtime runs the Centrifuge node of RTC Agent: connection
// authentication, the server-side subscriptions of each user (topic:u=<id> and
// live:u=<id>), RPC routing to the API, and the relay that publishes committed
// Topic updates.
//
// The database is the Topic channel's history: a wrapping Broker answers History
// for topic channels from the store and stamps each topic publication with the
// offset and epoch the store assigned, so Centrifuge's own recovery, merging and
// gap detection work on the durable stream, across restarts.
//
// The relay publishes updates after their commit, each user's in offset order.
// The commit hook only notes them (per user the newest offset, and the updates
// while memory allows) and never waits on the broker: with the broker down,
// commits go on at full speed, the relay retries with backoff and, once the broker
// is back, catches up by reading the committed updates from the store. A
// publication lost after commit shows up as a gap at the next one or at
// Centrifuge's periodic position check, and the client recovers it from the
// database. Shutdown publishes what is pending until its context ends.
//
// With a Redis URL the node joins a cluster (Centrifuge's Redis broker and
// presence manager); New waits for Redis while it cannot be reached, so nodes and
// their Redis may start in any order.
package realtime
