package e2e

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/realtime"
)

// lockedBuffer is a log sink read while the server writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A page from an origin outside -allowed-origins is told why it cannot connect
// (a close code a browser can read, after which it does not reconnect), and the
// server logs the refused Origin at warn level; an allowed origin connects.
func TestRefusedOriginGetsItsOwnDisconnectCode(t *testing.T) {
	logs := &lockedBuffer{}
	ts := startServerLogging(t, mustScript(t, writeReadScript), logs, func(c *config.Config) { c.Origins = "https://app.example" })
	srv := ts.Srv
	tok, _, err := srv.Verifier().Issue("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dial := func(origin string) (connected bool, code uint32, reason string) {
		c := centrifuge.NewJsonClient(ts.wsURL(), centrifuge.Config{Token: tok, Data: []byte(`{"device_id":"d1"}`), Header: http.Header{"Origin": {origin}}})
		defer c.Close()
		done := make(chan centrifuge.DisconnectedEvent, 1)
		ok := make(chan struct{}, 1)
		c.OnDisconnected(func(e centrifuge.DisconnectedEvent) { done <- e })
		c.OnConnected(func(centrifuge.ConnectedEvent) { ok <- struct{}{} })
		_ = c.Connect()
		select {
		case <-ok:
			return true, 0, ""
		case e := <-done:
			return false, e.Code, e.Reason
		case <-time.After(5 * time.Second):
			t.Fatalf("origin %s: neither connected nor disconnected", origin)
		}
		return
	}

	connected, code, reason := dial("https://evil.example")
	if connected || code != realtime.DisconnectOriginRefused.Code || reason != realtime.DisconnectOriginRefused.Reason {
		t.Fatalf("refused origin: connected %v, code %d %q; want code %d", connected, code, reason, realtime.DisconnectOriginRefused.Code)
	}
	waitFor(t, "the warning", 2*time.Second, func() bool {
		return strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "websocket origin refused") && strings.Contains(logs.String(), "origin=https://evil.example")
	})
	if connected, code, reason := dial("https://app.example"); !connected {
		t.Fatalf("allowed origin refused: code %d %q", code, reason)
	}
	if strings.Count(logs.String(), "websocket origin refused") != 1 {
		t.Fatalf("logs:\n%s", logs.String())
	}
}
