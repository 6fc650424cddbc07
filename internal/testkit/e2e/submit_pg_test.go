package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// TestSubmitRacePostgres: on PostgreSQL, results submitted at the same moment
// with different client_ids (two tabs, a retry racing the original) are all
// answered with the one stored outcome; the losers of the compare-and-set never
// get a conflict.
func TestSubmitRacePostgres(t *testing.T) {
	db := requirePostgres(t)
	s := startServer(t, mustScript(t, oneWriteScript), func(c *config.Config) { c.DBURL = db })
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	for turn := range 5 {
		res := b.send("", fmt.Sprintf("go %d", turn))
		var r protocol.RTC
		waitFor(t, "the turn's rtc", 10*time.Second, func() bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			for _, x := range b.rtcs {
				if x.Status == protocol.RTCPending && x.TurnID == res.TurnID {
					r = x
					return true
				}
			}
			return false
		})
		const n = 12
		answers := make([]protocol.RTC, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Over HTTP each request runs on its own goroutine, as from
				// separate connections.
				out, err := submitHTTP(s, "alice", "dev-a", protocol.RTCSubmitResultRequest{RTCID: r.ID,
					ClientID: fmt.Sprintf("tab-%d", i), OK: true, Output: jsonOf(fmt.Sprintf("from tab %d", i))})
				answers[i], errs[i] = out.RTC, err
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("turn %d, submission %d: %v", turn, i, errs[i])
			}
			if a := answers[i]; a.Status != protocol.RTCCompleted || a.ClientID != answers[0].ClientID || string(a.Output) != string(answers[0].Output) {
				t.Fatalf("turn %d: submission %d answered %s %s %s, submission 0 %s %s %s", turn, i,
					a.Status, a.ClientID, a.Output, answers[0].Status, answers[0].ClientID, answers[0].Output)
			}
		}
		if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("turn %d %s", turn, tr.Status)
		}
	}
}

func submitHTTP(s *testServer, user, device string, req protocol.RTCSubmitResultRequest) (protocol.RTCResult, error) {
	var out protocol.RTCResult
	tok, _, err := s.verifier().Issue(user, time.Hour)
	if err != nil {
		return out, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, s.HTTP.URL+"/api/v1/rpc/"+protocol.MethodRTCSubmitResult, bytes.NewReader(jsonOf(req)))
	if err != nil {
		return out, err
	}
	hr.Header.Set("Authorization", "Bearer "+tok)
	hr.Header.Set("X-Device-Id", device)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return out, json.Unmarshal(body, &out)
}
