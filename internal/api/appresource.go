package api

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// appResource reads a resource of the MCP server of a call whose view the
// caller was shown, for that view (v1.app.resource). A read changes nothing:
// it is not a call, asks no one and has no audit record; its bounds are the
// view's (the URI's and the contents' size), the user's rate of reads and
// how many run at once.
func (a *API) appResource(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.AppResourceRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("rtc_id", req.RTCID); err != nil {
		return nil, err
	}
	if req.URI == "" || len(req.URI) > protocol.AppResourceURIBytes || !utf8.ValidString(req.URI) {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "uri: the resource's URI, 1-%d bytes of UTF-8", protocol.AppResourceURIBytes)
	}
	if ok, _ := a.viewReads.allow(c.UserID); !ok {
		return nil, protocol.Errorf(protocol.CodeRateLimited, "views read at most %d resources a minute", protocol.AppResourceReadsPerMinute)
	}
	var server string
	err := a.read(ctx, func(tx store.Tx) error {
		r, err := lifecycle.ShownView(tx, c, req.RTCID)
		if err != nil {
			return err
		}
		server, _, _ = strings.Cut(r.ToolName, tools.ServerToolSeparator)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if a.views == nil {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no MCP server %q", server)
	}
	select {
	case a.viewReading <- struct{}{}:
		defer func() { <-a.viewReading }()
	default:
		return nil, protocol.Errorf(protocol.CodeUnavailable, "views read %d resources at once already; try again", cap(a.viewReading))
	}
	contents, err := a.views.ViewResource(ctx, server, req.URI)
	if err != nil {
		var pe *protocol.Error
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, protocol.Errorf(protocol.CodeUnavailable, "%v", err)
	}
	return protocol.AppResourceResult{Contents: contents}, nil
}
