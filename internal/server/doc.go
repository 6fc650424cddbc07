// Package server wires RTC Agent together: it is the one place that picks the
// backends (store, broker, model) from the configuration, and it starts and stops
// the parts in order: store, realtime node, session runner, HTTP; and the reverse
// on shutdown.
package server
