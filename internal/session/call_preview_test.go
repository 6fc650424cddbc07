package session

import (
	"strings"
	"sync"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// recordLive keeps the pieces of calls a runner sends on Live.
type recordLive struct {
	nopLive
	mu     sync.Mutex
	pieces []protocol.CallDelta
}

func (l *recordLive) PublishCallDelta(_ string, d protocol.CallDelta) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pieces = append(l.pieces, d)
	return nil
}

// The pieces of a call being written go on Live up to maxCallPreview bytes of
// its arguments (none after a piece cut at the bound), numbered per call,
// named by the stream's attempt, for the calls a step keeps only.
func TestCallPreviewBounded(t *testing.T) {
	live := &recordLive{}
	r := New(Config{Store: testsvc.SQLite(t), Model: helloModel(t), Live: live, Limits: protocol.Limits{StepCalls: 2}})
	tr := &protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Step: 3}
	out := &stepOutput{}
	big := strings.Repeat("x", maxCallPreview/2+10)
	for _, d := range []llm.ToolCallDelta{
		{Index: 0, ID: "c0", Name: "write"},              // the call's start: sent, with no arguments yet
		{Index: 0, ID: "c0", Name: "write", Args: big},   // sent
		{Index: 1, ID: "app:c1", Name: "ls", Args: `{}`}, // another call: its own seq, its id as its RTC's
		{Index: 0, ID: "c0", Name: "write", Args: big},   // cut at the bound
		{Index: 0, ID: "c0", Name: "write", Args: "y"},   // past it: not sent
		{Index: 2, ID: "c2", Name: "read", Args: `{}`},   // past the step's calls: not sent
		{Index: -1, ID: "c?", Name: "read", Args: `{}`},  // no place: not sent
	} {
		r.previewCall(tr, out, d)
	}
	var sent0 int
	var seqs []int64
	for _, p := range live.pieces {
		if p.Type != protocol.CallDeltaType || p.TurnID != "t1" || p.SessionID != "s1" || p.Step != 4 || p.Attempt == "" || p.Attempt != live.pieces[0].Attempt {
			t.Fatalf("piece %+v", p)
		}
		if p.Index == 1 && p.ToolCallID != "model:app:c1" {
			t.Fatalf("the model's id %q, not as its RTC will carry it", p.ToolCallID)
		}
		if p.Index == 0 {
			sent0 += len(p.Delta)
			seqs = append(seqs, p.Seq)
		}
	}
	if len(live.pieces) != 4 || sent0 != maxCallPreview || len(seqs) != 3 || seqs[2] != 3 {
		t.Fatalf("%d pieces, %d bytes of the first call in seqs %v: want 4 pieces, %d bytes in seqs 1-3", len(live.pieces), sent0, seqs, maxCallPreview)
	}
}

// Pieces that come faster than minPieceGap are joined until they hold
// minPieceBytes; what is held goes when the call comes whole.
func TestCallPreviewJoinsFastPieces(t *testing.T) {
	live := &recordLive{}
	r := New(Config{Store: testsvc.SQLite(t), Model: helloModel(t), Live: live})
	tr := &protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1"}
	out := &stepOutput{}
	args := `{"content": "` + strings.Repeat("a", 300) + `"}`
	for _, b := range args {
		r.previewCall(tr, out, llm.ToolCallDelta{Index: 0, ID: "c0", Name: "write", Args: string(b)})
	}
	r.flushPreviews(tr, out)
	var joined strings.Builder
	for i, p := range live.pieces {
		if p.Seq != int64(i+1) {
			t.Fatalf("piece %d has seq %d", i, p.Seq)
		}
		joined.WriteString(p.Delta)
	}
	if joined.String() != args {
		t.Fatalf("pieces join to %q, want %q", joined.String(), args)
	}
	if n, most := len(live.pieces), len(args)/minPieceBytes+2; n > most {
		t.Fatalf("%d bytes written a byte at a time went in %d pieces, want at most %d", len(args), n, most)
	}
}
