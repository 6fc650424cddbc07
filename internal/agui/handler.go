package agui

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/realtime"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Config is what the AG-UI endpoint needs from the server.
type Config struct {
	API      *api.API
	Store    store.Store
	Node     *realtime.Node
	Verifier *auth.Verifier
	// AllowedOrigins are the web origins whose pages may call the endpoint
	// (CORS); empty allows any origin, as for the WebSocket: the bearer token
	// is the credential.
	AllowedOrigins []string
	Logger         *slog.Logger
	// RunsPerUser bounds the runs one user has open at once on this node
	// (each holds a stream and a feed until its thread waits or ends); the
	// next is refused with rate_limited. Default MaxRunsPerUser.
	RunsPerUser int
}

// MaxRunsPerUser is the default bound of a user's open runs on one node.
const MaxRunsPerUser = 8

// DefaultDevice is the device of an AG-UI client that sends no X-Device-Id:
// every such client of a user shares its threads.
const DefaultDevice = "ag-ui"

// keepAlive is how often an idle stream sends an SSE comment.
const keepAlive = 15 * time.Second

// refollows bounds how often a run reconnects its feed.
const refollows = 3

type handler struct {
	cfg  Config
	mu   sync.Mutex
	open map[string]int // runs open, by user
}

// Handler serves POST /ag-ui: one AG-UI run per request, answered as a
// text/event-stream of AG-UI events (see doc.go).
func Handler(cfg Config) http.Handler {
	if cfg.RunsPerUser <= 0 {
		cfg.RunsPerUser = MaxRunsPerUser
	}
	return &handler{cfg: cfg, open: map[string]int{}}
}

// admit counts a run of the user as open, or refuses it past the bound; the
// run calls the returned function when it ends.
func (h *handler) admit(user string) (func(), *protocol.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[user] >= h.cfg.RunsPerUser {
		return nil, protocol.Errorf(protocol.CodeRateLimited, "%d AG-UI runs of this user are open on this server; wait for one to end", h.cfg.RunsPerUser)
	}
	h.open[user]++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.open[user]--; h.open[user] <= 0 {
			delete(h.open, user)
		}
	}, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.cors(w, r)
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		api.WriteError(w, protocol.Errorf(protocol.CodeInvalidArgument, "use POST"))
		return
	}
	tok, caller, perr := api.Authenticate(r, h.cfg.Verifier, DefaultDevice)
	if perr == nil {
		perr = validDevice(caller.DeviceID)
	}
	if perr != nil {
		api.WriteError(w, perr)
		return
	}
	in, perr := h.input(w, r)
	if perr != nil {
		api.WriteError(w, perr)
		return
	}
	done, perr := h.admit(caller.UserID)
	if perr != nil {
		api.WriteError(w, perr)
		return
	}
	defer done()
	h.serve(r.Context(), w, tok, caller, in)
}

// serve runs one AG-UI run. The feed connects first and the thread is read
// before the run acts: what the run's own commits change reaches it through
// the feed. Errors before the first event are answered as HTTP errors.
func (h *handler) serve(ctx context.Context, w http.ResponseWriter, tok string, c core.Caller, in *RunInput) {
	feed, err := h.cfg.Node.Follow(ctx, tok, c.DeviceID)
	if err != nil {
		api.WriteError(w, protocol.Errorf(protocol.CodeUnavailable, "follow the thread: %v", err))
		return
	}
	defer func() { feed.Close() }()
	sessionID := ThreadSession(c.UserID, in.ThreadID)
	read := func() (*state, error) { return readState(ctx, h.cfg.Store, c.UserID, sessionID, in.messageClientID()) }
	st, err := read()
	if err != nil {
		api.WriteError(w, protocol.Errorf(protocol.CodeUnavailable, "read the thread: %v", err))
		return
	}
	turnID, answered, perr := h.act(ctx, c, in, sessionID, st)
	if perr != nil {
		api.WriteError(w, perr)
		return
	}
	out := newStream(w)
	run := newRun(out.event, in, sessionID, turnID, answered)
	err = run.start(in, st, h.partial(ctx, c))
	for tries := 0; err == nil && !run.done; {
		var ev realtime.FeedEvent
		ev, err = next(ctx, feed, out)
		switch {
		case errors.Is(err, realtime.ErrFeedEnded) && tries < refollows:
			tries++
			err = h.refollow(ctx, tok, c, &feed, read, run)
		case err != nil:
		case ev.Update != nil:
			err = run.update(ev.Update)
		case ev.Delta != nil:
			err = run.delta(ev.Delta)
		}
	}
	if err != nil && ctx.Err() == nil && !run.done && !out.failed {
		h.cfg.Logger.Warn("ag-ui run ended early", "user", c.UserID, "thread", in.ThreadID, "err", err)
		_ = out.event(runError{Type: evRunError, Code: protocol.CodeUnavailable,
			Message: "the run's stream was interrupted; the turn goes on: run again to follow it"})
	}
}

// refollow replaces a lost feed and applies what changed meanwhile.
func (h *handler) refollow(ctx context.Context, tok string, c core.Caller, feed **realtime.Feed, read func() (*state, error), run *run) error {
	f, err := h.cfg.Node.Follow(ctx, tok, c.DeviceID)
	if err != nil {
		return err
	}
	(*feed).Close()
	*feed = f
	st, err := read()
	if err != nil {
		return err
	}
	return run.resync(st)
}

// next waits for the feed's next publication, keeping the stream alive.
func next(ctx context.Context, feed *realtime.Feed, out *stream) (realtime.FeedEvent, error) {
	for {
		wait, cancel := context.WithTimeout(ctx, keepAlive)
		ev, err := feed.Next(wait)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return ev, err
		}
		if err := out.comment("keep-alive"); err != nil {
			return ev, err
		}
	}
}

// input reads and checks the run's input.
func (h *handler) input(w http.ResponseWriter, r *http.Request) (*RunInput, *protocol.Error) {
	lim := h.cfg.API.Limits()
	body, perr := api.ReadBody(w, r, lim.RequestBytes)
	if perr != nil {
		return nil, perr
	}
	var in RunInput
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "RunAgentInput: %v", err)
	}
	if err := in.check(lim); err != nil {
		return nil, asError(err)
	}
	return &in, nil
}

// act applies what the input brings: the person's answers to the interrupts
// of an earlier run, the client's results of the thread's open calls, then
// its new message. It returns the turn they concern and the
// calls it answered.
func (h *handler) act(ctx context.Context, c core.Caller, in *RunInput, sessionID string, st *state) (turnID string, answered []string, _ *protocol.Error) {
	for _, e := range in.Resume {
		open, ok := st.openCall(e.InterruptID)
		if !ok || interruptOf(open) == nil {
			continue // answered already (another tab), or not a question
		}
		method, params, err := resumeRequest(open, e)
		if err != nil {
			return "", nil, asError(err)
		}
		if _, perr := h.call(ctx, c, method, params); perr != nil {
			return "", nil, perr
		}
		turnID = open.TurnID
		answered = append(answered, open.ID)
	}
	for _, m := range in.Messages {
		open, ok := st.openCall(m.ToolCallID)
		if m.Role != "tool" || !ok {
			continue // not a result, or one applied already
		}
		req := protocol.RTCSubmitResultRequest{RTCID: m.ToolCallID, ClientID: resultPrefix + m.ToolCallID, OK: m.Error == "", Error: m.Error}
		if req.OK {
			text, err := m.text()
			if err != nil {
				return "", nil, asError(err)
			}
			req.Output = output(text)
		}
		if _, perr := h.call(ctx, c, protocol.MethodRTCSubmitResult, req); perr != nil {
			return "", nil, perr
		}
		turnID = open.TurnID
		answered = append(answered, open.ID)
	}
	m, ok := in.newUserMessage()
	if !ok {
		return turnID, answered, nil
	}
	text, err := m.text()
	if err != nil {
		return "", nil, asError(err)
	}
	req := &protocol.MessageSendRequest{ClientID: in.messageClientID(), NewSessionID: sessionID,
		Content: protocol.MessageContent{Text: text}, Tools: in.hostTools(), HostToolsOnly: true}
	if md := in.agentMD(); md != "" {
		req.Context = &protocol.MessageContext{AgentMD: md}
	}
	res, perr := h.cfg.API.SendMessage(ctx, c, req)
	if perr != nil {
		return "", nil, perr
	}
	return res.TurnID, answered, nil
}

// partial reads the text a streaming message has shown so far.
func (h *handler) partial(ctx context.Context, c core.Caller) func(string) (string, int64) {
	return func(id string) (string, int64) {
		b, perr := h.call(ctx, c, protocol.MethodMessageGet, protocol.IDRequest{MessageID: id})
		var res protocol.MessageGetResult
		if perr != nil || json.Unmarshal(b, &res) != nil {
			return "", 0
		}
		return res.Message.Text, res.DeltaSeq
	}
}

func (h *handler) call(ctx context.Context, c core.Caller, method string, params any) ([]byte, *protocol.Error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "%v", err)
	}
	return h.cfg.API.Call(ctx, c, method, b)
}

// cors lets the allowed origins' pages call the endpoint with a token.
func (h *handler) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" || len(h.cfg.AllowedOrigins) > 0 && !slices.Contains(h.cfg.AllowedOrigins, origin) {
		return
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, "+api.DeviceHeader)
	hd.Set("Access-Control-Max-Age", "600")
}

func asError(err error) *protocol.Error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe
	}
	return protocol.Errorf(protocol.CodeInvalidArgument, "%v", err)
}

// validDevice checks a device id as the API does, before the feed connects
// with it.
func validDevice(id string) *protocol.Error {
	if err := protocol.ValidDeviceID(id); err != nil {
		return protocol.Errorf(protocol.CodeInvalidArgument, "%v", err)
	}
	return nil
}
