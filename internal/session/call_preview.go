package session

import (
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Bounds of the pieces of a call sent on Live while the model writes it:
// maxCallPreview bytes of its arguments (the rest shows when the call comes
// whole), and pieces that come faster than minPieceGap are joined until
// they hold minPieceBytes, so a model writing a byte at a time costs a
// publish per 64 bytes, not per byte.
const (
	maxCallPreview = 16 << 10
	minPieceBytes  = 64
	minPieceGap    = 50 * time.Millisecond
)

// callPreviews are the calls a stream's model is writing, by their place in
// the step.
type callPreviews struct {
	calls   map[int]*callPreview
	attempt string // names this stream's pieces
}

// callPreview is one call being written: what was sent on Live and what
// waits to be joined with the next piece.
type callPreview struct {
	id, name string // as the model last said them
	seq      int64  // of the last piece sent
	sent     int    // bytes of arguments taken, sent or waiting
	held     strings.Builder
	last     time.Time // when the last piece was sent
}

// previewCall takes a piece of a call the model is writing, up to
// maxCallPreview bytes of its arguments and for the calls a step keeps, and
// sends it on Live now or with the next (see minPieceGap).
func (r *Runner) previewCall(t *protocol.Turn, out *stepOutput, d llm.ToolCallDelta) {
	if d.Index < 0 || d.Index >= r.cfg.Limits.StepCalls {
		return
	}
	pv := &out.previews
	p := pv.calls[d.Index]
	if p == nil {
		if pv.calls == nil {
			pv.calls, pv.attempt = map[int]*callPreview{}, core.NewID()
		}
		p = &callPreview{}
		pv.calls[d.Index] = p
	}
	p.id, p.name = d.ID, d.Name
	if p.sent >= maxCallPreview || d.Args == "" && p.seq > 0 {
		return // past the bound, or nothing new
	}
	args := protocol.Prefix(d.Args, maxCallPreview-p.sent)
	p.sent += len(args)
	if len(args) < len(d.Args) {
		p.sent = maxCallPreview // what follows would not join to what was sent
	}
	p.held.WriteString(args)
	if now := time.Now(); p.seq == 0 || p.held.Len() >= minPieceBytes || now.Sub(p.last) >= minPieceGap {
		r.sendPiece(t, out, d.Index, p, now)
	}
}

// flushPreviews sends what the calls being written hold back.
func (r *Runner) flushPreviews(t *protocol.Turn, out *stepOutput) {
	for i, p := range out.previews.calls {
		if p.held.Len() > 0 {
			r.sendPiece(t, out, i, p, time.Now())
		}
	}
}

// sendPiece sends what call i holds as its next piece, named as its RTC will
// be (agent.AdmitCall) and by the stream's attempt.
func (r *Runner) sendPiece(t *protocol.Turn, out *stepOutput, i int, p *callPreview, now time.Time) {
	p.seq++
	p.last = now
	cd := protocol.CallDelta{Type: protocol.CallDeltaType, SessionID: t.SessionID, TurnID: t.ID, Step: t.Step + 1, Index: i,
		ToolCallID: protocol.Cut(protocol.ModelCallID(p.id), r.cfg.Limits.IDBytes), Name: protocol.Cut(p.name, r.cfg.Limits.IDBytes),
		Attempt: out.previews.attempt, Seq: p.seq, Delta: p.held.String()}
	p.held.Reset()
	if err := r.cfg.Live.PublishCallDelta(t.UserID, cd); err != nil {
		r.log.Warn("live publish", "err", err) // the step's calls come on Topic
	}
}
