// Package reach waits for a backend (PostgreSQL, Redis) that a node needs at
// start: it tries again while the backend cannot be reached, with growing pauses
// and a log line per failure, and gives up only when its context ends or the
// backend answers with a refusal. A node and its backends may so start in any
// order.
package reach
