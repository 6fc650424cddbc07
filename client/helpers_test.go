package client_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

// startServer starts a real server in this process with the scripted model.
func startServer(t *testing.T, script string) *testserver.Server {
	t.Helper()
	m, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return testserver.Start(t, m, testserver.Options{})
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countLines counts the lines of a file (0 when it does not exist).
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		return err
	}
	return f.Sync()
}
