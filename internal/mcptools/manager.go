package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Asker puts an MCP server's elicitation to the person and returns the answer:
// action is "accept" (with content), "decline" or "cancel".
type Asker = tools.Asker

// Hooks receive a call's elicitations and progress.
type Hooks = tools.Hooks

// Options configure a Manager.
type Options struct {
	Logger      *slog.Logger
	ResultBytes int // largest output or error of a call; default 256 KiB
	// MessageBytes bounds one message read from a stdio server (default 8 MiB,
	// below the SDK's 16 MiB line limit): a longer answer fails its call alone.
	MessageBytes int
	MinBackoff   time.Duration // first wait before connecting again; default 500 ms
	MaxBackoff   time.Duration // longest wait; default 30 s
}

// Manager keeps the connections to the configured servers and their tools.
type Manager struct {
	opts   Options
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup
	conns  map[string]*conn

	mu      sync.RWMutex
	tools   map[string]Tool // by Name
	apps    map[string]App  // tools' views, by tool Name (app.go)
	changed chan struct{}   // closed and replaced when the tool list changes

	answered   taskIDs       // tasks whose result was read here (task.go)
	cancelling chan struct{} // one token per cancel under way
}

// conn is one server's connection; session is nil while it is not connected.
type conn struct {
	srv      Server
	mu       sync.Mutex
	session  *mcp.ClientSession
	ready    chan struct{} // closed after the first successful listing
	once     sync.Once
	calls    map[int64]*inflight // calls in flight, by their number on this connection
	nextCall int64
	// taskSupport: the execution.taskSupport of the server's tools that
	// declare one; runsTasks: the server runs tools/call as tasks (tasks.go).
	taskSupport  map[string]string
	runsTasks    bool
	cancelsTasks bool // and declares tasks/cancel
	// side sends what the SDK has no method for (side.go); tasks: the tasks
	// awaited on this connection, by id (task.go).
	side  side
	tasks map[string]*inflight
	// orders: the property order of the requested schemas the server sent
	// lately, by their names (order.go); orderKeys, oldest first.
	orders    map[string][]string
	orderKeys []string
	// warned: what a listing left out and was logged already; a server lists
	// its tools again on every change, and says the same each time.
	warned map[string]bool
	// listing: one listing at a time (list), so one that started earlier
	// never replaces what a later one read.
	listing sync.Mutex
}

// leftOut logs, once per connection, why something of a listing is left out.
func (c *conn) leftOut(log *slog.Logger, msg string, args ...any) {
	key := fmt.Sprint(append([]any{msg}, args...)...)
	c.mu.Lock()
	seen := c.warned[key]
	if c.warned == nil {
		c.warned = map[string]bool{}
	}
	c.warned[key] = true
	c.mu.Unlock()
	if !seen {
		log.Warn(msg, append([]any{"server", c.srv.Name}, args...)...)
	}
}

// Start connects to every server of cfg in the background and keeps the
// connections until Close.
func Start(cfg *Config, opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ResultBytes <= 0 {
		opts.ResultBytes = 256 << 10
	}
	if opts.MessageBytes <= 0 {
		opts.MessageBytes = 8 << 20
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, log: opts.Logger.With("component", "mcp"), cancel: cancel, conns: map[string]*conn{},
		tools: map[string]Tool{}, apps: map[string]App{}, changed: make(chan struct{}), cancelling: make(chan struct{}, maxCancels)}
	for _, s := range cfg.Servers {
		c := &conn{srv: s, ready: make(chan struct{}), calls: map[int64]*inflight{}, taskSupport: map[string]string{}, tasks: map[string]*inflight{}, orders: map[string][]string{}}
		m.conns[s.Name] = c
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.keep(ctx, c)
		}()
	}
	return m
}

// Close ends the connections (a stdio server's process is stopped).
func (m *Manager) Close() {
	m.cancel()
	m.wg.Wait()
}

// Ready waits until every server was connected and listed once, or ctx ends.
func (m *Manager) Ready(ctx context.Context) error {
	for _, c := range m.conns {
		select {
		case <-c.ready:
		case <-ctx.Done():
			return fmt.Errorf("mcp server %q not connected: %w", c.srv.Name, ctx.Err())
		}
	}
	return nil
}

// waitListed waits until the server of tool name (its prefix) has listed its
// tools once, or ctx ends: a call resumed just after a restart, or a server
// slow to start (npx fetching a package), is not failed for it. A name of no
// configured server waits for nothing.
func (m *Manager) waitListed(ctx context.Context, name string) error {
	server, _, _ := strings.Cut(name, Separator)
	c, ok := m.conns[server]
	if !ok {
		return nil
	}
	select {
	case <-c.ready:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the MCP server %q has not listed its tools yet: %w", server, ctx.Err())
	}
}

// Tools returns the tools offered to the model, sorted by name (not those
// only views may call).
func (m *Manager) Tools() []Tool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Tool, 0, len(m.tools))
	for _, t := range m.tools {
		if t.ForModel {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Changed returns a channel closed at the next change of the tool list.
func (m *Manager) Changed() <-chan struct{} {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.changed
}

// Lookup returns the tool named name, whether the model or a view calls it.
func (m *Manager) Lookup(name string) (Tool, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.tools[name]
	return t, ok
}

// Call runs the tool's call once. An error means the call did not get an answer
// (unknown tool, no connection, transport failure, ctx ended); the call may or
// may not have run at the server. A tool's own failure is a Result with OK false.
// h.Ask receives the server's elicitations during the call (nil declines them),
// h.Progress its progress notifications, bounded (see progress); none reaches
// it once Call has returned.
func (m *Manager) Call(ctx context.Context, name string, args json.RawMessage, h Hooks) (Result, error) {
	if err := m.waitListed(ctx, name); err != nil {
		return Result{}, err
	}
	t, ok := m.Lookup(name)
	if !ok {
		return Result{}, fmt.Errorf("unknown MCP tool %q", name)
	}
	c := m.conns[t.Server]
	c.mu.Lock()
	s, sd := c.session, c.side
	c.mu.Unlock()
	if s == nil {
		return Result{}, fmt.Errorf("the MCP server %q is not connected", t.Server)
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	cl := &inflight{hooks: h, progress: h.Progress}
	id := c.add(cl)
	defer c.drop(id, cl)
	token := ""
	if h.Progress != nil {
		// The call's number is unique among the calls in flight on this
		// connection, what the protocol asks of a progress token.
		token = progressToken(id)
	}
	if t.Task && sd != nil {
		return m.callTask(ctx, c, sd, t, args, cl, token)
	}
	ctx = context.WithValue(ctx, hooksKey{}, h)
	params := &mcp.CallToolParams{Name: t.Remote, Arguments: args}
	if token != "" {
		params.SetProgressToken(token)
	}
	res, err := s.CallTool(ctx, params)
	if err != nil {
		return Result{}, bound(fmt.Errorf("MCP server %q, tool %q: %w", t.Server, t.Remote, err), m.opts.ResultBytes)
	}
	return resultOf(res, m.opts.ResultBytes), nil
}

func (c *conn) get() *mcp.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

func (c *conn) set(s *mcp.ClientSession) {
	c.mu.Lock()
	c.session = s
	var ended side
	if s == nil {
		ended, c.side = c.side, nil
	}
	c.mu.Unlock()
	if ended != nil {
		ended.close() // its requests in flight end with the connection
	}
}

// inflight is one call in flight: where its questions, requests to use the
// model and progress go.
type inflight struct {
	hooks Hooks

	mu       sync.Mutex // held while progress runs: none runs after drop
	progress func(protocol.RTCProgress)
}

func (c *conn) add(cl *inflight) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextCall++
	c.calls[c.nextCall] = cl
	return c.nextCall
}

// drop forgets a call that returned; a progress notification being handed to
// it is waited for, so none reaches it afterwards.
func (c *conn) drop(id int64, cl *inflight) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
	cl.mu.Lock()
	cl.progress = nil
	cl.mu.Unlock()
}

func progressToken(id int64) string { return "rtcagent-" + strconv.FormatInt(id, 10) }

// progress hands a progress notification to the call whose token it carries,
// bounded where it enters: the message cut to protocol.ProgressMessageBytes, a
// progress that is no finite number of at least 0 dropped, a total that is no
// finite positive number left out (unknown). A notification of no call in
// flight (ended, or a token this client never sent) is dropped.
func (c *conn) progress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok || !strings.HasPrefix(token, "rtcagent-") {
		return
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(token, "rtcagent-"), 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	cl := c.calls[id]
	c.mu.Unlock()
	if cl == nil || math.IsNaN(p.Progress) || math.IsInf(p.Progress, 0) || p.Progress < 0 {
		return
	}
	v := protocol.RTCProgress{Progress: p.Progress, Total: p.Total, Message: protocol.Cut(p.Message, protocol.ProgressMessageBytes)}
	if math.IsNaN(v.Total) || math.IsInf(v.Total, 0) || v.Total <= 0 {
		v.Total = 0
	}
	cl.report(v)
}

// report hands a bounded progress to the call, unless it has returned.
func (cl *inflight) report(v protocol.RTCProgress) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.progress != nil {
		cl.progress(v)
	}
}

// hooksKey carries a call's Hooks to the requests the server sends within the
// call (multi round-trip requests of the current protocol).
type hooksKey struct{}

// hooks are the Hooks of the call a request from the server belongs to: the
// call's own (ctx), else that of the task its _meta names (task.go), else the
// one call in flight on this connection, for a request sent on its own (older
// protocol versions), which does not say which call it belongs to: with
// several calls in flight it cannot be routed, and the hooks are empty.
func (c *conn) hooks(ctx context.Context, meta mcp.Meta) Hooks {
	if h, ok := ctx.Value(hooksKey{}).(Hooks); ok {
		return h
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := relatedTask(meta); id != "" {
		if cl := c.tasks[id]; cl != nil {
			return cl.hooks
		}
		return Hooks{} // a task no call here waits for
	}
	if len(c.calls) != 1 {
		return Hooks{}
	}
	for _, cl := range c.calls {
		return cl.hooks
	}
	return Hooks{}
}

// keep connects to the server and connects again, with backoff, whenever the
// connection fails or ends, until ctx ends.
func (m *Manager) keep(ctx context.Context, c *conn) {
	log := m.log.With("server", c.srv.Name)
	wait := m.opts.MinBackoff
	for ctx.Err() == nil {
		s, err := m.connect(ctx, c)
		if err == nil {
			log.Info("connected")
			c.set(s)
			stop := context.AfterFunc(ctx, func() { _ = s.Close() })
			wait = m.opts.MinBackoff
			if err = m.list(ctx, c, s); err == nil {
				c.once.Do(func() { close(c.ready) })
			} else {
				log.Warn("list tools", "err", logErr(err))
			}
			werr := s.Wait()
			stop()
			c.set(nil)
			if ctx.Err() != nil {
				return
			}
			log.Warn("connection ended; connecting again", "err", logErr(werr))
		} else if ctx.Err() == nil {
			log.Warn("connect", "err", logErr(err), "retry_in", wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, m.opts.MaxBackoff)
	}
}

func (m *Manager) connect(ctx context.Context, c *conn) (*mcp.ClientSession, error) {
	c.mu.Lock()
	c.runsTasks, c.cancelsTasks = false, false // until this connection's server says
	c.mu.Unlock()
	var tr mcp.Transport
	var sd side
	ct := newClientTasks()
	if c.srv.URL != "" {
		hs := newHTTPSide(c.srv.URL, &http.Client{Transport: headers{h: c.srv.Headers}}, m.opts.MessageBytes, m.serveSide(c), c.noteSchemaOrder,
			func(p *mcp.ProgressNotificationParams) { c.progress(p) })
		take := func(line []byte) bool {
			c.noteLine(line)
			return m.takeRequest(c, ct, line, hs.send)
		}
		tr = &mcp.StreamableClientTransport{Endpoint: c.srv.URL,
			HTTPClient: &http.Client{Transport: headers{h: c.srv.Headers, limit: m.opts.MessageBytes, take: take, side: hs}}}
		sd = hs
	} else {
		cmd := exec.Command(c.srv.Command, c.srv.Args...)
		cmd.Env = os.Environ()
		for k, v := range c.srv.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = os.Stderr
		ls := newLineSide()
		take := func(line []byte) bool {
			if ls.take(line) {
				return true
			}
			c.noteLine(line)
			return m.takeRequest(c, ct, line, ls.send)
		}
		tr = &stdioTransport{cmd: cmd, limit: m.opts.MessageBytes, log: m.log.With("server", c.srv.Name), side: ls, take: take}
		sd = ls
	}
	sd = withTasks{side: sd, tasks: ct}
	var self *mcp.ClientSession
	var selfMu sync.Mutex
	client := mcp.NewClient(&mcp.Implementation{Name: "rtcagent", Version: "1"}, &mcp.ClientOptions{
		Logger: m.log,
		// Roots as the SDK's default, questions as forms or links,
		// requests to use the model (text only) and tools' views.
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
			Sampling:    &mcp.SamplingCapabilities{},
			// Tools' views (MCP Apps, app.go).
			Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{AppMIME}}}},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			selfMu.Lock()
			s := self
			selfMu.Unlock()
			if s != nil {
				go func() {
					if err := m.list(ctx, c, s); err != nil {
						m.log.Warn("list tools after a change", "server", c.srv.Name, "err", logErr(err))
					}
				}()
			}
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return m.elicit(ctx, c, req)
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return m.sample(ctx, c, req)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.progress(req.Params)
		},
	})
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := client.Connect(cctx, tr, nil)
	if err != nil {
		sd.close()
		return nil, err
	}
	selfMu.Lock()
	self = s
	selfMu.Unlock()
	c.mu.Lock()
	c.side = sd
	c.mu.Unlock()
	return s, nil
}

// elicit hands an elicitation to the Asker of the call in flight, or declines it.
func (m *Manager) elicit(ctx context.Context, c *conn, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Params == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	ask := c.hooks(ctx, req.Params.Meta).Ask
	if ask == nil {
		m.log.Info("elicitation declined: no call to ask for", "server", c.srv.Name)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	q := tools.Question{Server: c.srv.Name, Message: req.Params.Message, URL: req.Params.URL}
	if req.Params.Mode != "url" {
		schema, err := json.Marshal(req.Params.RequestedSchema)
		if err != nil {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		q.Schema, q.URL = schema, ""
		q.Order = c.schemaOrder(propertyNames(req.Params.RequestedSchema))
	}
	ans, err := ask(ctx, q)
	if err != nil {
		return nil, err
	}
	switch ans.Action {
	case "accept":
		return &mcp.ElicitResult{Action: ans.Action, Content: ans.Content}, nil
	case "decline", "cancel":
		return &mcp.ElicitResult{Action: ans.Action}, nil
	}
	return nil, errors.New("the answer to the elicitation has no valid action")
}

// list reads the server's tools and replaces its part of the tool list.
func (m *Manager) list(ctx context.Context, c *conn, s *mcp.ClientSession) error {
	c.listing.Lock()
	defer c.listing.Unlock()
	var offered []Tool
	uis := map[string]string{} // tool name → its view's ui:// resource
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		task, ok := c.taskMode(t.Name)
		if !ok {
			c.leftOut(m.log, "tool left out: it requires MCP tasks (execution.taskSupport \"required\") and the server declares no tasks for tools/call", "tool", t.Name)
			continue
		}
		ot, err := offer(c.srv.Name, t)
		if err != nil {
			c.leftOut(m.log, "tool left out", "err", err)
			continue
		}
		ot.Task = task
		uri, forModel, forView := uiOf(t)
		if !forModel && !forView {
			c.leftOut(m.log, "tool left out: neither the model nor a view may call it (_meta.ui.visibility)", "tool", t.Name)
			continue
		}
		ot.ForModel, ot.ForView = forModel, forView
		if len(offered) >= MaxToolsPerSrv {
			c.leftOut(m.log, "tools left out: more than the limit per server", "limit", MaxToolsPerSrv)
			break
		}
		if uri != "" && forModel {
			// Only a call of the model shows a view: a tool for views alone
			// names one, but its calls have no card to show it in.
			uis[ot.Name] = uri
		}
		offered = append(offered, ot)
	}
	apps := m.readApps(ctx, c, s, uis)
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, t := range m.tools {
		if t.Server == c.srv.Name {
			delete(m.tools, name)
			delete(m.apps, name)
		}
	}
	for _, t := range offered {
		if len(m.tools) >= MaxTools {
			m.log.Warn("tools left out: more than the limit for all servers", "server", c.srv.Name, "limit", MaxTools)
			break
		}
		if a, ok := apps[t.Name]; ok {
			m.apps[t.Name] = a
			t.App = AppPath(t.Name)
		}
		m.tools[t.Name] = t
	}
	close(m.changed)
	m.changed = make(chan struct{})
	m.log.Info("tools listed", "server", c.srv.Name, "tools", len(offered))
	return nil
}

// headers adds the configured headers to every request of a URL server; for
// the SDK's requests (side set), it declares the client's tasks in the
// initialize request, shows their session to side and the lines of their
// answers to take (a line it takes is not passed on).
type headers struct {
	h     map[string]string
	limit int
	take  func([]byte) bool
	side  *httpSide
}

func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.h {
		req.Header.Set(k, v)
	}
	if h.side != nil {
		// initialize is the first request of a session: later ones are
		// not read for it.
		if !h.side.note(req) {
			if err := declareTasksIn(req); err != nil {
				return nil, err
			}
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && h.take != nil {
		watchLines(req, resp, h.limit, h.take)
	}
	return resp, err
}

// declareTasksIn adds the client's tasks to the capabilities of an
// initialize request's body (declareTasks).
func declareTasksIn(req *http.Request) error {
	if req.GetBody == nil || req.ContentLength <= 0 || req.ContentLength > 64<<10 {
		return nil // not the initialize request: the SDK sends that whole and small
	}
	body, err := req.GetBody()
	if err != nil {
		return err
	}
	b, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return err
	}
	out := declareTasks(b)
	if len(out) == len(b) {
		return nil
	}
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.ContentLength = int64(len(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return nil
}

// logErr is an error's text for the log, bounded: a server's error text has no
// bound of its own.
func logErr(err error) string {
	if err == nil {
		return ""
	}
	return protocol.Cut(err.Error(), 1<<10)
}
