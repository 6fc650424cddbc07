// Package api implements the v1.* methods of RTC Agent as one handler table served
// over two transports: Centrifuge RPC (internal/realtime) and HTTP
// (POST /api/v1/rpc/<method>, ServeHTTP here).
//
// Every handler validates its input against the configured limits, runs one short
// transaction and returns: handlers never wait for a model, a browser or a person.
// Errors leave as *protocol.Error with a stable code; the translation from store
// errors to codes happens here and nowhere else.
package api
