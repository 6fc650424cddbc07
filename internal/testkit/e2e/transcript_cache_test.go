package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

// transcriptLoads reads the process's transcript_loads_total counter by source.
func transcriptLoads(t *testing.T, source string) float64 {
	t.Helper()
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "rtcagent_transcript_loads_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "source" && l.GetValue() == source {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// Every step of a session this process created takes its transcript from the
// cache brought up to date by updates, the first one too (from the update
// that created the session); every step of every e2e test also checks it
// against the store (VerifyTranscripts), so a wrong transcript fails the turn.
func TestTranscriptCacheServesSteps(t *testing.T) {
	const calls = 8
	steps := strings.Repeat(`{"tool_calls": [{"name": "ls", "arguments": {}}]},`, calls)
	model := mustScript(t, fmt.Sprintf(`{"name": "cache", "turns": [{"steps": [%s {"text": "done"}]}, {"steps": [{"text": "again"}]}]}`, steps))
	s := startServer(t, model)
	br := newBrowser(t, s, "cache-user", "dev")
	br.decide = func(protocol.RTC) (bool, any, string, bool) { return true, "a.txt", "", false }
	before := transcriptLoads(t, "cache")
	res := br.send("", "go")
	if tr := br.waitTurn(res.TurnID, time.Minute); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", tr.Status)
	}
	res2 := br.send(res.SessionID, "once more")
	if tr := br.waitTurn(res2.TurnID, time.Minute); tr.Status != protocol.TurnCompleted {
		t.Fatalf("second turn %s", tr.Status)
	}
	if got := transcriptLoads(t, "cache") - before; got < calls+2 {
		t.Fatalf("%v of %d steps used the cache", got, calls+2)
	}
}

// On the embedded store, which knows its streams' positions as of its last
// commit, a step brings the cached transcript up to date from this process's
// commits without a read transaction, the first step of a new session too.
// (Every other test's server checks each such transcript against the store,
// VerifyTranscripts, with a read.)
func TestEmbeddedStepsReadNoTransaction(t *testing.T) {
	const calls = 6
	steps := strings.Repeat(`{"tool_calls": [{"name": "ls", "arguments": {}}]},`, calls)
	model := mustScript(t, fmt.Sprintf(`{"name": "no-read", "turns": [{"steps": [{"text": "warm"}]}, {"steps": [%s {"text": "done"}]}]}`, steps))
	s := &testServer{testserver.Start(t, model, testserver.Options{
		// What reads on a timer (the backstop poll, deadlines, leases) is not a step's.
		Config: func(c *config.Config) { c.PollInterval, c.NodeTTL, c.LeaseTTL = time.Hour, time.Hour, time.Hour },
		Server: server.Options{},
	})}
	br := newBrowser(t, s, "no-read-user", "dev")
	br.decide = func(protocol.RTC) (bool, any, string, bool) { return true, "a.txt", "", false }
	for _, session := range []string{"", "warm"} { // a new session, then one with a turn before
		if session == "warm" {
			warm := br.send("", "warm up")
			br.waitTurn(warm.TurnID, time.Minute)
			session = warm.SessionID
		}
		before := sqlitestore.ReadCounts()
		res := br.send(session, "go")
		if tr := br.waitTurn(res.TurnID, time.Minute); tr.Status != protocol.TurnCompleted {
			t.Fatalf("turn %s", tr.Status)
		}
		reads := sqlitestore.ReadCounts().Sub(before).Reads
		t.Logf("%d steps, %d read transactions", calls+1, reads)
		if reads > 0 {
			t.Fatalf("%d read transactions for %d steps: steps read their input in transactions", reads, calls+1)
		}
	}
}
