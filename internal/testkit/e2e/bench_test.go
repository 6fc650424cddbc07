package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// timedModel records, per step, when the model's stream ended and when the next
// request arrived: the gap is the RTC round trip as the model experiences it
// (commit, publish, browser execution over the WebSocket, submit, resume).
type timedModel struct {
	llm.Model
	mu    sync.Mutex
	ended time.Time
	gaps  []time.Duration
}

func (m *timedModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	now := time.Now()
	m.mu.Lock()
	if !m.ended.IsZero() && req.Messages[len(req.Messages)-1].Role == llm.RoleTool {
		m.gaps = append(m.gaps, now.Sub(m.ended))
	}
	m.mu.Unlock()
	s, err := m.Model.Stream(ctx, req)
	return &timedStream{Stream: s, m: m}, err
}

type timedStream struct {
	llm.Stream
	m *timedModel
}

func (s *timedStream) Next() bool {
	ok := s.Stream.Next()
	if !ok {
		s.m.mu.Lock()
		s.m.ended = time.Now()
		s.m.mu.Unlock()
	}
	return ok
}

// BenchmarkRTCRoundTrip measures the server overhead of one remote tool call with
// the scripted model (zero model latency) and a trivial tool: embedded (SQLite,
// in-memory broker) and scale-out (PostgreSQL, Redis broker and Live buffer).
func BenchmarkRTCRoundTrip(b *testing.B) {
	b.Run("embedded", func(b *testing.B) { benchRoundTrip(b) })
	b.Run("postgres+redis", func(b *testing.B) {
		db, rd := requirePostgres(b), requireRedis(b)
		benchRoundTrip(b, func(c *config.Config) { c.DBURL, c.RedisURL, c.RedisPfx = db, rd, uniquePrefix() })
	})
}

func benchRoundTrip(b *testing.B, opts ...serverOpt) {
	const perTurn = 25
	steps := strings.Repeat(`{"tool_calls": [{"name": "ls", "arguments": {}}]},`, perTurn)
	script := fmt.Sprintf(`{"name": "bench", "turns": [{"steps": [%s {"text": "done"}]}]}`, steps)
	m := &timedModel{Model: mustScript(b, script)}
	s := startServerB(b, m, opts...)
	br := newBrowser(b, s, "bench", "dev")
	br.decide = func(protocol.RTC) (bool, any, string, bool) { return true, "a.txt", "", false }
	b.ResetTimer()
	sq0 := sqlitestore.ReadCounts()
	// A new session per turn: the transcript stays short, so this measures the
	// round trip itself rather than transcript growth.
	for done := 0; done < b.N; done += perTurn {
		res := br.send("", "go")
		if tr := br.waitTurn(res.TurnID, time.Minute); tr.Status != protocol.TurnCompleted {
			b.Fatalf("turn %s", tr.Status)
		}
	}
	b.StopTimer()
	sq := sqlitestore.ReadCounts().Sub(sq0)
	m.mu.Lock()
	gaps := append([]time.Duration(nil), m.gaps...)
	m.mu.Unlock()
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	pct := func(p float64) float64 { return float64(gaps[int(p*float64(len(gaps)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.9), "p90-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	if sq.Commits > 0 { // embedded: what a round trip (with its share of the turn) writes
		b.ReportMetric(float64(sq.Pages)/float64(len(gaps)), "wal-pages/rt")
		b.ReportMetric(float64(sq.Commits)/float64(len(gaps)), "commits/rt")
	}
	b.ReportMetric(0, "ns/op")
}
