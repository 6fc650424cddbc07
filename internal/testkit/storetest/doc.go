// Package storetest is the conformance suite every store.Store implementation must
// pass: offsets, commit hooks, compare-and-set, idempotency keys, leases with
// fencing, the inbox, checkpoints and history retention.
package storetest
