package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// sampler returns the Sampler of server call parent: each request of the
// tool's server to use the model becomes an RTC of the call's turn
// (tools.SamplingTool), shown to the person with what would be sent. Once they
// allow it (or the session allows that server's requests for the chat), the
// session's model answers it outside any transaction, and the request ends
// with the answer, its tokens counted to the turn. A refusal, a timeout or the
// end of the call refuses the request; so does one past MaxSamplesPerCall.
func (r *Runner) sampler(parent *protocol.RTC, n *atomic.Int64) tools.Sampler {
	var made atomic.Int64
	return func(ctx context.Context, q tools.SampleRequest) (tools.SampleResult, error) {
		if made.Add(1) > tools.MaxSamplesPerCall {
			return tools.SampleResult{}, fmt.Errorf("at most %d requests to use the model in one tool call", tools.MaxSamplesPerCall)
		}
		args, err := json.Marshal(q)
		if err != nil {
			return tools.SampleResult{}, err
		}
		ask := lifecycle.Question{ParentID: parent.ID, N: n.Add(1), ID: core.NewID(), Args: args, Human: r.cfg.Limits.HumanTimeout,
			Tool: tools.SamplingTool(q.Server)}
		err = r.cfg.Store.Write(ctx, func(tx store.Tx) error { return lifecycle.Ask(tx, ask) })
		if errors.Is(err, lifecycle.ErrCallEnded) {
			return tools.SampleResult{}, errors.New("the tool's call ended before the request to use the model was made")
		}
		if err != nil {
			return tools.SampleResult{}, err
		}
		allowed := func(rc *protocol.RTC) bool { return rc.Approved() || !rc.NeedsConfirmation }
		rc, err := r.awaitAnswer(ctx, ask.ID, allowed)
		if err != nil {
			return tools.SampleResult{}, err
		}
		switch {
		case rc.Status == protocol.RTCRejected:
			return tools.SampleResult{}, errors.New("the person refused the request to use the model")
		case protocol.RTCTerminal(rc.Status):
			return tools.SampleResult{}, fmt.Errorf("the request to use the model ended: %s", rc.Error)
		}
		text, usage, err := r.complete(ctx, q.LLM())
		r.price(&usage)
		out, _ := json.Marshal(text)
		errText := ""
		if err != nil {
			errText = protocol.Cut("the model gave no answer: "+err.Error(), 1<<10)
		}
		werr := r.cfg.Store.Write(context.WithoutCancel(ctx), func(tx store.Tx) error {
			return lifecycle.EndSample(tx, ask.ID, err == nil, out, errText, usage)
		})
		if werr != nil {
			r.log.Warn("record the answer to a request to use the model", "rtc", ask.ID, "err", werr)
		}
		if err != nil {
			return tools.SampleResult{}, errors.New(errText)
		}
		return tools.SampleResult{Text: text, Model: r.cfg.Model.Name()}, nil
	}
}

// complete runs one model request to its end: its text, cut at the limit of a
// tool's result, and its usage. Tool calls are not offered and not kept.
func (r *Runner) complete(ctx context.Context, req *llm.Request) (string, protocol.Usage, error) {
	var u protocol.Usage
	s, err := r.cfg.Model.Stream(ctx, req)
	if err != nil {
		return "", u, err
	}
	defer s.Close()
	var b strings.Builder
	for s.Next() {
		switch ev := s.Current(); ev.Kind {
		case llm.EventText:
			if b.Len() <= r.cfg.Limits.ToolResultBytes {
				b.WriteString(ev.Text)
			}
		case llm.EventUsage:
			u.InputTokens = max(u.InputTokens, ev.Usage.InputTokens)
			u.OutputTokens = max(u.OutputTokens, ev.Usage.OutputTokens)
		}
	}
	return protocol.Cut(b.String(), r.cfg.Limits.ToolResultBytes), u, s.Err()
}
