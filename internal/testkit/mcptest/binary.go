package mcptest

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// Binary builds the mcpserver command once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	return testsvc.Binary(t, "github.com/rtcagent/rtcagent/internal/testkit/mcptest/mcpserver")
}
