package api

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// appToolRE is a tool's name as a view gives it: its name at its server.
var appToolRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ServeViews lets tools' views call the tools of their own MCP servers that
// vt offers them (v1.app.call), traced by trace; without it every such call
// is not_found.
func (a *API) ServeViews(vt tools.ViewTools, trace lifecycle.Tracing) {
	a.views, a.viewTrace = vt, trace
}

// appCall records the call a tool's view asks for (lifecycle.CallFromView)
// and returns its RTC; the page follows it to its end like any call and
// gives the view its result. A call that starts a turn of its own (the
// view's turn has ended) counts as a message for the per-user rate.
func (a *API) appCall(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.AppCallRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkRTCIDs(req.RTCID, req.ClientID); err != nil {
		return nil, err
	}
	if len(req.Tool) > protocol.AppToolNameBytes || !appToolRE.MatchString(req.Tool) {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "tool: the tool's name at its server, 1-%d letters, digits, _ and -", protocol.AppToolNameBytes)
	}
	args := bytes.TrimSpace(req.Arguments)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if len(args) > protocol.AppCallArgsBytes {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "arguments are %d bytes, more than the limit of %d for a view's call", len(args), protocol.AppCallArgsBytes)
	}
	if args[0] != '{' {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "arguments must be a JSON object")
	}
	lookup := func(string) (tools.Tool, bool) { return tools.Tool{}, false }
	if a.views != nil {
		lookup = a.views.ViewTool
	}
	v := lifecycle.ViewCall{ParentID: req.RTCID, ClientID: req.ClientID, Tool: req.Tool, Args: json.RawMessage(args),
		ID: core.ViewCallRTCID(req.RTCID, req.ClientID), Lookup: lookup, Limits: a.lim,
		StartTurn: once(func() error { return a.allowSend(c) }), Trace: a.viewTrace}
	return a.rtcChange(ctx, 1, func(tx store.Tx) (*protocol.RTC, error) { return lifecycle.CallFromView(tx, c, v) })
}

// once is f run at most once until it succeeds: a transaction the store runs
// again takes no second token.
func once(f func() error) func() error {
	done := false
	return func() error {
		if done {
			return nil
		}
		err := f()
		done = err == nil
		return err
	}
}
