package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A call of a tool that runs as a task (MCP tasks extension, Tool.Task) is a
// task-augmented tools/call: the server answers at once with the task it
// created, and the call's result is read later with tasks/result, which the
// server answers once the task has ended. The task's id goes to the call's
// Hooks.Task before the wait, so the caller can keep it: after a restart,
// ResumeTask waits for the same task instead of calling the tool again. While
// the call waits, tasks/get is asked at the interval the server suggests and
// the task's status message is the call's progress. A question the server
// asks for the task (input_required) names the task in its _meta and goes to
// the call's Asker. A call cut off by its context leaves its task running:
// whether to cancel it is the caller's decision (CancelTask: a stop ends it,
// a shutdown does not; CancelEnded: a call ended while no one waited). Only
// a task whose id cannot be kept is cancelled here.

// relatedTaskKey is the _meta key that names the task a message belongs to.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// Bounds of the wait for a task: the interval between two tasks/get, whatever
// the server suggests, and how long the server is asked to keep the task when
// the call's context has no deadline.
const (
	minTaskPoll = 500 * time.Millisecond
	maxTaskPoll = 10 * time.Second
	taskTTL     = time.Hour
)

// taskState is a task as the server describes it.
type taskState struct {
	TaskID        string   `json:"taskId"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage"`
	PollInterval  *float64 `json:"pollInterval"`
}

func (t taskState) ended() bool {
	return t.Status == "completed" || t.Status == "failed" || t.Status == "cancelled"
}

// callTask makes a task-augmented call of t and waits for its result.
func (m *Manager) callTask(ctx context.Context, c *conn, sd side, t Tool, args json.RawMessage, cl *inflight, token string) (Result, error) {
	ttl := taskTTL
	if d, ok := ctx.Deadline(); ok {
		ttl = max(time.Until(d), 0) + time.Minute // kept a little past the call's deadline
	}
	params := map[string]any{"name": t.Remote, "arguments": args, "task": map[string]any{"ttl": ttl.Milliseconds()}}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	ctx = context.WithValue(ctx, hooksKey{}, cl.hooks)
	raw, err := sd.call(ctx, "tools/call", params)
	if err != nil {
		return Result{}, m.taskErr(t, err)
	}
	var created struct {
		Task *taskState `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return Result{}, m.taskErr(t, fmt.Errorf("the answer to a task's call: %w", err))
	}
	if created.Task == nil || created.Task.TaskID == "" {
		// A server may run an optional task's call at once: its answer is
		// the tool's result.
		return m.toolResult(raw)
	}
	id := created.Task.TaskID
	if len(id) > maxTaskIDBytes {
		m.cancelTask(c, id)
		return Result{}, m.taskErr(t, fmt.Errorf("the task's id is more than %d bytes", maxTaskIDBytes))
	}
	// The call waits for the task from here: a question the server asks for
	// it at once reaches the call, while its id is being kept.
	forget := c.awaiting(id, cl)
	defer forget()
	if h := cl.hooks.Task; h != nil {
		if err := h(id); err != nil {
			// Not kept: a restart could not find it again; the task is
			// cancelled rather than left running unseen.
			m.cancelTask(c, id)
			return Result{}, fmt.Errorf("keeping the task's id: %w", err)
		}
	}
	return m.awaitTask(ctx, c, t, id, cl, *created.Task)
}

// maxTaskIDBytes bounds a task's id, kept with the call.
const maxTaskIDBytes = 256

// awaiting notes that cl waits for task id, so the server's requests that
// name the task reach it; forget undoes it.
func (c *conn) awaiting(id string, cl *inflight) (forget func()) {
	c.mu.Lock()
	c.tasks[id] = cl
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		if c.tasks[id] == cl {
			delete(c.tasks, id)
		}
		c.mu.Unlock()
	}
}

// awaitTask waits for task id's result, reporting its status as progress.
// The wait outlives the connection it started on: an answer cut off (a
// stream that ended, a connection made again) is asked for again, on the
// server's current connection, until ctx ends. A JSON-RPC error from the
// server is its word on the task: the tool's failure, as the spec has
// tasks/result repeat the error of the call.
func (m *Manager) awaitTask(ctx context.Context, c *conn, t Tool, id string, cl *inflight, first taskState) (Result, error) {
	ctx = context.WithValue(ctx, hooksKey{}, cl.hooks)
	wait := minTaskPoll
	began := c.currentSide()
	for {
		sd := c.currentSide()
		var raw json.RawMessage
		err := errNotConnected
		if sd != nil {
			pctx, stopPolls := context.WithCancel(ctx)
			polled := make(chan struct{})
			go func() {
				defer close(polled)
				m.pollTask(pctx, sd, id, cl, first)
			}()
			raw, err = sd.call(ctx, "tasks/result", map[string]any{"taskId": id})
			stopPolls()
			<-polled
		}
		var rerr *rpcError
		if errors.As(err, &rerr) && sd != began {
			// On a connection made since the task began, the server may
			// have forgotten it (a stdio server's new process).
			if _, gerr := sd.call(ctx, "tasks/get", map[string]any{"taskId": id}); gerr != nil {
				if gone := taskGone(t, id, gerr); gone != nil {
					return Result{}, gone
				}
			}
		}
		if err == nil || rerr != nil {
			m.answered.note(id) // ended by its own result: nothing to cancel
		}
		switch {
		case err == nil:
			return m.toolResult(raw)
		case rerr != nil:
			return Result{OK: false, Error: protocol.Cut(fmt.Sprintf("MCP server %q, tool %q, task %s: %s", t.Server, t.Remote, id, rerr.Message), m.opts.ResultBytes)}, nil
		case ctx.Err() != nil:
			return Result{}, m.taskErr(t, err)
		}
		m.log.Info("the wait for a task's result was cut off; asking again", "server", t.Server, "task", id, "err", logErr(err))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return Result{}, m.taskErr(t, err)
		case <-timer.C:
		}
		wait = min(wait*2, maxTaskPoll)
	}
}

var errNotConnected = errors.New("the MCP server is not connected")

// currentSide is what sends beside the SDK on the connection now, or nil.
func (c *conn) currentSide() side {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.side
}

// taskGone is ErrTaskGone, named, when err is the server's word that it does
// not know task id (-32602, invalid params: the code the spec gives an
// unknown task), else nil.
func taskGone(t Tool, id string, err error) error {
	var rerr *rpcError
	if !errors.As(err, &rerr) || rerr.Code != -32602 {
		return nil
	}
	return fmt.Errorf("%w: MCP server %q, task %s: %s", ErrTaskGone, t.Server, protocol.Cut(id, maxTaskIDBytes), protocol.Cut(rerr.Message, 1<<10))
}

// taskErr is an error of a task's call for the caller: named, and bounded.
func (m *Manager) taskErr(t Tool, err error) error {
	return bound(fmt.Errorf("MCP server %q, tool %q: %w", t.Server, t.Remote, err), m.opts.ResultBytes)
}

// pollTask asks for the task's status until ctx ends or the task has ended,
// and gives each new status message to the call's progress.
func (m *Manager) pollTask(ctx context.Context, sd side, id string, cl *inflight, st taskState) {
	last := ""
	for {
		if st.StatusMessage != "" && st.StatusMessage != last {
			// A status, not an amount: progress 0, no total, the message.
			last = st.StatusMessage
			cl.report(protocol.RTCProgress{Message: protocol.Cut(st.StatusMessage, protocol.ProgressMessageBytes)})
		}
		if st.ended() {
			return
		}
		wait := time.Second
		if p := st.PollInterval; p != nil && *p > 0 {
			// In float first: a huge interval must not wrap around.
			wait = time.Duration(min(*p, float64(maxTaskPoll/time.Millisecond))) * time.Millisecond
		}
		timer := time.NewTimer(max(wait, minTaskPoll))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		raw, err := sd.call(ctx, "tasks/get", map[string]any{"taskId": id})
		if err != nil {
			return // the result's wait says what went wrong
		}
		var next taskState
		if json.Unmarshal(raw, &next) != nil {
			return
		}
		st = next
	}
}

// toolResult reads a tools/call result as the SDK would.
func (m *Manager) toolResult(raw json.RawMessage) (Result, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return Result{}, fmt.Errorf("the server's tool result: %w", err)
	}
	return resultOf(&res, m.opts.ResultBytes), nil
}

// ErrTaskGone is the error of a task's wait when the server no longer knows
// the task (it restarted, or the session the task belonged to ended).
var ErrTaskGone = tools.ErrTaskGone

// resumeTask waits for the result of task id, made earlier for a call of the
// tool named name (by this process or one before it), on the tool's
// server's current connection. A task the server does not know is
// ErrTaskGone: nothing waits for it, and the caller decides what the call
// becomes.
func (m *Manager) resumeTask(ctx context.Context, name, id string, h Hooks) (Result, error) {
	t, c, sd, err := m.taskConn(ctx, name)
	if err != nil {
		return Result{}, err
	}
	raw, err := sd.call(ctx, "tasks/get", map[string]any{"taskId": id})
	if gone := taskGone(t, id, err); gone != nil {
		return Result{}, gone
	}
	if err != nil {
		return Result{}, m.taskErr(t, err)
	}
	var st taskState
	if err := json.Unmarshal(raw, &st); err != nil {
		return Result{}, m.taskErr(t, fmt.Errorf("the task's status: %w", err))
	}
	cl := &inflight{hooks: h, progress: h.Progress}
	n := c.add(cl)
	defer c.drop(n, cl)
	forget := c.awaiting(id, cl)
	defer forget()
	return m.awaitTask(ctx, c, t, id, cl, st)
}

// CancelTask asks the tool's server to cancel task id; a server that
// declares no cancel is not asked.
func (m *Manager) CancelTask(ctx context.Context, name, id string) error {
	t, c, sd, err := m.taskConn(ctx, name)
	if err != nil {
		return err
	}
	if !c.cancels() {
		return nil
	}
	if _, err := sd.call(ctx, "tasks/cancel", map[string]any{"taskId": id}); err != nil {
		return m.taskErr(t, fmt.Errorf("cancel task %s: %w", id, err))
	}
	return nil
}

// cancelTask cancels a task this process will not wait for, in the
// background, bounded: at most maxCancels at a time, the rest left to their
// TTL (and logged).
func (m *Manager) cancelTask(c *conn, id string) {
	sd := c.currentSide()
	if sd == nil || !c.cancels() {
		return
	}
	select {
	case m.cancelling <- struct{}{}:
	default:
		m.log.Warn("task not cancelled: too many cancels under way", "server", c.srv.Name, "task", protocol.Cut(id, maxTaskIDBytes))
		return
	}
	go func() {
		defer func() { <-m.cancelling }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := sd.call(ctx, "tasks/cancel", map[string]any{"taskId": id}); err != nil {
			m.log.Info("cancel a task", "server", c.srv.Name, "task", protocol.Cut(id, maxTaskIDBytes), "err", logErr(err))
		}
	}()
}

// maxCancels bounds the cancels under way at once (cancelTask).
const maxCancels = 16

// CancelEnded cancels, in the background, the task of a server call that
// ended otherwise than by the task's own result here: stopped, timed out,
// ended with its chat (the store's commits say which calls ended; the
// caller passes those with a task). A task whose result this process read
// is left alone.
func (m *Manager) CancelEnded(name, id string) {
	if m.answered.has(id) {
		return
	}
	t, ok := m.Lookup(name)
	if !ok {
		return
	}
	m.cancelTask(m.conns[t.Server], id)
}

// taskIDs is a bounded set of task ids: the oldest are forgotten past
// maxAnswered.
type taskIDs struct {
	mu    sync.Mutex
	set   map[string]bool
	order []string
}

const maxAnswered = 4096

func (s *taskIDs) note(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]bool{}
	}
	if s.set[id] {
		return
	}
	if len(s.order) >= maxAnswered {
		delete(s.set, s.order[0])
		s.order = s.order[1:]
	}
	s.set[id] = true
	s.order = append(s.order, id)
}

func (s *taskIDs) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set[id]
}

// taskConn is the tool named name, once its server has listed its tools,
// its connection and what sends beside its SDK.
func (m *Manager) taskConn(ctx context.Context, name string) (Tool, *conn, side, error) {
	if err := m.waitListed(ctx, name); err != nil {
		return Tool{}, nil, nil, err
	}
	t, ok := m.Lookup(name)
	if !ok {
		return Tool{}, nil, nil, fmt.Errorf("unknown MCP tool %q", name)
	}
	c := m.conns[t.Server]
	sd := c.currentSide()
	if sd == nil {
		return Tool{}, nil, nil, fmt.Errorf("the MCP server %q is not connected", t.Server)
	}
	return t, c, sd, nil
}

// relatedTask is the task a server's request names in its _meta, or "".
func relatedTask(meta mcp.Meta) string {
	v, _ := meta[relatedTaskKey].(map[string]any)
	id, _ := v["taskId"].(string)
	return id
}
