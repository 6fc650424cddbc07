package agui

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// TestRunsPerUserBounded: past the bound, a user's next run is refused with
// rate_limited until one ends; other users are not affected.
func TestRunsPerUserBounded(t *testing.T) {
	h := Handler(Config{RunsPerUser: 2}).(*handler)
	var ends []func()
	for range 2 {
		done, err := h.admit("ada")
		if err != nil {
			t.Fatalf("run within the bound refused: %v", err)
		}
		ends = append(ends, done)
	}
	if _, err := h.admit("ada"); err == nil || err.Code != protocol.CodeRateLimited {
		t.Fatalf("third run: %v, want rate_limited", err)
	}
	if done, err := h.admit("bob"); err != nil {
		t.Fatalf("another user's run refused: %v", err)
	} else {
		done()
	}
	ends[0]()
	done, err := h.admit("ada")
	if err != nil {
		t.Fatalf("a run after one ended refused: %v", err)
	}
	done()
	ends[1]()
	if len(h.open) != 0 {
		t.Errorf("counts left after every run ended: %v", h.open)
	}
	if Handler(Config{}).(*handler).cfg.RunsPerUser != MaxRunsPerUser {
		t.Error("no default bound")
	}
}
