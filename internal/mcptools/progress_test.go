package mcptools

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// TestProgress: a call sends a progress token, and the server's notifications
// for it reach the call's Progress hook bounded where they enter (a 1000-byte
// message cut to the limit, a negative progress and a token of no call
// dropped), up to the last one; none comes after the call returned. Over stdio
// and Streamable HTTP.
func TestProgress(t *testing.T) {
	t.Run("stdio", func(t *testing.T) { testProgress(t, start(t, Server{Name: "t", Command: mcptest.Binary(t)})) })
	t.Run("http", func(t *testing.T) {
		hs := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
		t.Cleanup(hs.Close)
		testProgress(t, start(t, Server{Name: "t", URL: hs.URL}))
	})
}

func testProgress(t *testing.T, m *Manager) {
	gate := filepath.Join(t.TempDir(), "gate")
	args, _ := json.Marshal(map[string]any{"count": 20, "total": 20, "message_bytes": 1000, "bad": true, "gate": gate})

	var mu sync.Mutex
	var got []protocol.RTCProgress
	returned := false
	last := make(chan struct{})
	h := Hooks{Progress: func(p protocol.RTCProgress) {
		mu.Lock()
		defer mu.Unlock()
		if returned {
			t.Errorf("progress after the call returned: %+v", p)
		}
		got = append(got, p)
		if p.Progress == 20 {
			close(last)
		}
	}}
	type answer struct {
		res Result
		err error
	}
	done := make(chan answer, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() {
		res, err := m.Call(ctx, "t__progress", args, h)
		mu.Lock()
		returned = true
		mu.Unlock()
		done <- answer{res, err}
	}()
	select {
	case <-last:
	case a := <-done:
		t.Fatalf("the call ended before its last progress: %+v %v", a.res, a.err)
	case <-ctx.Done():
		t.Fatal("no last progress")
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || outputText(t, a.res) != "reported 20 times" {
		t.Fatalf("answer %+v %v", a.res, a.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 20 {
		t.Fatalf("%d notifications reached the call, want the 20 valid ones: %+v", len(got), got)
	}
	for i, p := range got {
		if p.Progress != float64(i+1) || p.Total != 20 || len(p.Message) > protocol.ProgressMessageBytes || len(p.Message) < 100 {
			t.Fatalf("notification %d: %+v (message %d bytes)", i, p, len(p.Message))
		}
	}
}
