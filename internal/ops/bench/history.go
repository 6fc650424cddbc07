package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// HistoryPoint is row 6 at one conversation size: one measured turn of tool
// calls on each side, both starting from the same transcript.
type HistoryPoint struct {
	Target    int // the size asked for (-history)
	Messages  int // model-visible messages when the measured turn started
	Calls     int // tool calls in the measured turn, each side
	Ours      PerCall
	Stateless PerCall
}

// PerCall is what one tool call cost the client.
type PerCall struct {
	Bytes float64 // bytes the client sent, over the measured turn / calls
	RTT   Pcts    // model's stream with the call ended → request with its result reached the model
}

// listing is the output of every tool call in row 6, on both sides: a
// directory listing of a plausible size.
func listing() string {
	return "README.md\nLICENSE\ngo.mod\ngo.sum\nMakefile\ncmd/\ndocs/\ninternal/\nweb/\n" +
		"package.json\ntsconfig.json\n.gitignore\n.github/\nscripts/\nexamples/\nCHANGELOG.md\n"
}

// seedBatch is how many calls one seeding step emits: filling a session's
// history to 500 messages takes seconds, not one round trip per message.
const seedBatch = 10

// measureHistory runs row 6. One RTC Agent session grows to each size in turn
// (ascending): turns of calls fill it, then a turn of o.Calls calls is measured.
// The stateless baseline then starts from the very transcript the model saw at
// the start of that turn and runs the same turn through the same model.
func measureHistory(ctx context.Context, o Options, tmp, prefix string, logf func(string, ...any)) ([]HistoryPoint, error) {
	sizes := slices.Clone(o.History)
	slices.Sort(sizes)
	m := newModel(o.Calls, o.Tool)
	srv, err := startServer(ctx, o, m, filepath.Join(tmp, "history.db"), prefix)
	if err != nil {
		return nil, err
	}
	defer srv.close()
	base, err := startStateless(m)
	if err != nil {
		return nil, err
	}
	defer base.close()
	up := &upstream{}
	tool := func(context.Context, protocol.RTC) simclient.Result {
		return simclient.Result{OK: true, Output: listing()}
	}
	clients, err := dialAll(ctx, srv.url, srv.ver, prefix, 1, func(int) simclient.Config {
		return simclient.Config{Tool: tool, NetDialContext: up.dial}
	})
	if err != nil {
		return nil, err
	}
	c := clients[0]
	defer c.Close()

	h := &historySession{c: c, m: m}
	var out []HistoryPoint
	for _, n := range sizes {
		logf("history: %d messages", n)
		if err := h.fill(ctx, n); err != nil {
			return nil, fmt.Errorf("filling to %d messages: %w", n, err)
		}
		// The fill's turns (or the previous size's measured turn) warmed this
		// side up: connection, statements, the session's first steps.
		m.take()
		b0 := up.bytes()
		if err := h.turn(ctx, "go"); err != nil {
			return nil, fmt.Errorf("measured turn at %d messages: %w", n, err)
		}
		sent := up.bytes() - b0
		gaps := m.take()
		first, _ := m.opened()
		if len(first) == 0 || first[len(first)-1].Role != llm.RoleUser {
			return nil, errors.New("the measured turn's first request was not seen")
		}
		seed := first[:len(first)-1]
		p := HistoryPoint{Target: n, Messages: len(seed), Calls: o.Calls,
			Ours: PerCall{Bytes: float64(sent) / float64(o.Calls), RTT: pcts(gaps)}}
		if p.Stateless, err = statelessTurn(ctx, base, m, seed, o.Calls); err != nil {
			return nil, fmt.Errorf("stateless at %d messages: %w", n, err)
		}
		// Same conversation, same model input: the baseline's measured turn must
		// have started from exactly what RTC Agent gave the model.
		if got, _ := m.opened(); !reflect.DeepEqual(got, first) {
			return nil, fmt.Errorf("at %d messages the baseline's first request differs from RTC Agent's (%d and %d messages)", n, len(got), len(first))
		}
		if err := c.Err(); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// statelessTurn measures one turn of the baseline from a copy of seed, after an
// unmeasured warm-up turn from the same seed (connection setup, first use).
func statelessTurn(ctx context.Context, base *statelessServer, m *model, seed []llm.Message, calls int) (PerCall, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cl := newStatelessClient(base.url, listing)
	defer cl.close()
	cl.msgs = fromModel(seed)
	if _, err := cl.turn(ctx, "go"); err != nil {
		return PerCall{}, fmt.Errorf("warm-up: %w", err)
	}
	cl.msgs = fromModel(seed)
	m.take()
	b0 := cl.up.bytes()
	ran, err := cl.turn(ctx, "go")
	if err != nil {
		return PerCall{}, err
	}
	if ran != calls {
		return PerCall{}, fmt.Errorf("%d calls ran, want %d", ran, calls)
	}
	return PerCall{Bytes: float64(cl.up.bytes()-b0) / float64(calls), RTT: pcts(m.take())}, nil
}

// historySession is the RTC Agent side: one session of one client.
type historySession struct {
	c       *simclient.Client
	m       *model
	session string
	k       int
	msgs    int // model-visible messages after the last turn
}

// turn sends text and waits until the turn completed.
func (h *historySession) turn(ctx context.Context, text string) error {
	h.k++
	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := h.c.Send(tctx, h.session, fmt.Sprintf("h-%d", h.k), text)
	if err != nil {
		return err
	}
	h.session = res.SessionID
	tr, err := h.c.WaitTurn(tctx, res.TurnID)
	if err != nil {
		return err
	}
	if tr.Status != protocol.TurnCompleted {
		return fmt.Errorf("turn %s", tr.Status)
	}
	// The transcript now is the turn's last request plus the answer it produced.
	_, last := h.m.opened()
	h.msgs = last + 1
	return nil
}

// fill runs turns of batched calls until the transcript holds at least n
// messages. A turn of c calls in steps of seedBatch adds its user message, one
// assistant message per step, c results and the answer.
func (h *historySession) fill(ctx context.Context, n int) error {
	for h.msgs < n {
		r := n - h.msgs
		c := max(1, (r-2)*seedBatch/(seedBatch+1))
		c = min(c, 40*seedBatch) // well within the step limit
		if err := h.turn(ctx, fmt.Sprintf("calls=%d batch=%d", c, seedBatch)); err != nil {
			return err
		}
	}
	return nil
}
