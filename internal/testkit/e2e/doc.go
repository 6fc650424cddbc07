// Package e2e holds the end-to-end tests of the server: a real server (in process
// over httptest, or as a child process for crash tests), real SQLite, and
// centrifuge-go clients that play the browser, executing tools against an
// in-memory file map.
package e2e
