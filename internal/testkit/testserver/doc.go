// Package testserver starts the RTC Agent server inside a test's process, behind
// an httptest server, with the configuration tests share: a SQLite file in the
// test's temporary directory, the test secret, the scripted provider, a short
// poll and lease, and no message rate limit. The server stops at the test's
// cleanup, or earlier with Stop. It lives beside internal/testsvc because
// testsvc is imported by the store tests and so cannot import the server.
package testserver
