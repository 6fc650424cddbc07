package e2e

import (
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

const testSecret = testserver.Secret

// testServer is a server running in this process.
type testServer struct{ *testserver.Server }

func (s *testServer) wsURL() string { return s.WSURL() }

func (s *testServer) verifier() *auth.Verifier { return s.Srv.Verifier() }

// endpoint is a server a browser can connect to.
type endpoint interface {
	wsURL() string
	verifier() *auth.Verifier
}

type serverOpt func(*config.Config)

func startServer(t *testing.T, model llm.Model, opts ...serverOpt) *testServer {
	return startServerB(t, model, opts...)
}

// startServerB starts a server for a test or a benchmark.
func startServerB(t testing.TB, model llm.Model, opts ...serverOpt) *testServer {
	t.Helper()
	return startServerLogging(t, model, nil, opts...)
}

// startServerLogging starts a server whose warnings and errors go to logs (nil:
// standard error).
func startServerLogging(t testing.TB, model llm.Model, logs io.Writer, opts ...serverOpt) *testServer {
	t.Helper()
	_, verify := t.(*testing.T) // tests check every cached transcript; benchmarks measure
	return &testServer{testserver.Start(t, model, testserver.Options{
		Config: func(c *config.Config) {
			for _, o := range opts {
				o(c)
			}
		},
		Logs:   logs,
		Server: server.Options{VerifyTranscripts: verify},
	})}
}

func mustScript(t testing.TB, js string) *scripted.Model {
	t.Helper()
	m, err := scripted.Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeReadScript: write a file, read it back, answer with its content.
const writeReadScript = `{"name": "write-read", "turns": [{"steps": [
  {"text": "I will write the file first.", "tool_calls": [{"name": "write", "arguments": {"path": "/notes.txt", "content": "hello rtc"}}]},
  {"tool_calls": [{"name": "read", "arguments": {"path": "/notes.txt"}}]},
  {"chunks": ["The file ", "says: ", "{{last_result}}", ". Done."]}
]}]}`

func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
