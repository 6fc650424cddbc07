package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
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
// the call's Asker. Nothing here cancels a task: a call cut off by its
// context leaves it running (CancelTask is the caller's decision: a stop ends
// it, a shutdown does not).

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
		ttl = time.Until(d) + time.Minute // kept a little past the call's deadline
	}
	params := map[string]any{"name": t.Remote, "arguments": args, "task": map[string]any{"ttl": ttl.Milliseconds()}}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	raw, err := sd.call(ctx, "tools/call", params)
	if err != nil {
		return Result{}, err
	}
	var created struct {
		Task *taskState `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return Result{}, fmt.Errorf("the server's answer to a task's call: %w", err)
	}
	if created.Task == nil || created.Task.TaskID == "" {
		// A server may run an optional task's call at once: its answer is
		// the tool's result.
		return m.toolResult(raw)
	}
	id := protocol.Cut(created.Task.TaskID, maxTaskIDBytes)
	if id != created.Task.TaskID {
		return Result{}, fmt.Errorf("the server's task id is more than %d bytes", maxTaskIDBytes)
	}
	if h := cl.hooks.Task; h != nil {
		if err := h(id); err != nil {
			// Not kept: a restart could not find it again; the task is
			// cancelled rather than left running unseen.
			m.cancelTask(c, sd, id)
			return Result{}, fmt.Errorf("keeping the task's id: %w", err)
		}
	}
	return m.awaitTask(ctx, c, sd, id, cl, *created.Task)
}

// maxTaskIDBytes bounds a task's id, kept with the call.
const maxTaskIDBytes = 256

// awaitTask waits for task id's result, reporting its status as progress.
func (m *Manager) awaitTask(ctx context.Context, c *conn, sd side, id string, cl *inflight, first taskState) (Result, error) {
	c.mu.Lock()
	c.tasks[id] = cl
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.tasks[id] == cl {
			delete(c.tasks, id)
		}
		c.mu.Unlock()
	}()
	pctx, stopPolls := context.WithCancel(ctx)
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		m.pollTask(pctx, sd, id, cl, first)
	}()
	raw, err := sd.call(ctx, "tasks/result", map[string]any{"taskId": id})
	stopPolls()
	<-polled
	if err != nil {
		var rerr *rpcError
		if errors.As(err, &rerr) {
			// The server's word on the task: it failed, or the server no
			// longer knows it (it restarted, or its session ended).
			return Result{OK: false, Error: protocol.Cut(fmt.Sprintf("the MCP task %s: %s", id, rerr.Message), m.opts.ResultBytes)}, nil
		}
		return Result{}, err
	}
	return m.toolResult(raw)
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
		if st.PollInterval != nil {
			wait = time.Duration(*st.PollInterval) * time.Millisecond
		}
		timer := time.NewTimer(min(max(wait, minTaskPoll), maxTaskPoll))
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

// resumeTask waits for the result of task id, made earlier for a call of the
// tool named name (by this process or one before it), on the tool's
// server's current connection.
func (m *Manager) resumeTask(ctx context.Context, name, id string, h Hooks) (Result, error) {
	c, sd, err := m.taskConn(ctx, name)
	if err != nil {
		return Result{}, err
	}
	cl := &inflight{hooks: h, progress: h.Progress}
	n := c.add(cl)
	defer c.drop(n, cl)
	return m.awaitTask(ctx, c, sd, id, cl, taskState{TaskID: id, Status: "working"})
}

// CancelTask asks the tool's server to cancel task id.
func (m *Manager) CancelTask(ctx context.Context, name, id string) error {
	c, sd, err := m.taskConn(ctx, name)
	if err != nil {
		return err
	}
	_, err = sd.call(ctx, "tasks/cancel", map[string]any{"taskId": id})
	if err != nil {
		return fmt.Errorf("MCP server %q: cancel task %s: %w", c.srv.Name, id, err)
	}
	return nil
}

// cancelTask cancels a task this process will not wait for, in the
// background, bounded.
func (m *Manager) cancelTask(c *conn, sd side, id string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := sd.call(ctx, "tasks/cancel", map[string]any{"taskId": id}); err != nil {
			m.log.Warn("cancel a task", "server", c.srv.Name, "task", id, "err", logErr(err))
		}
	}()
}

// taskConn is the connection of the tool named name's server and what sends
// beside its SDK.
func (m *Manager) taskConn(ctx context.Context, name string) (*conn, side, error) {
	if err := m.waitListed(ctx, name); err != nil {
		return nil, nil, err
	}
	t, ok := m.Lookup(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown MCP tool %q", name)
	}
	c := m.conns[t.Server]
	c.mu.Lock()
	sd := c.side
	c.mu.Unlock()
	if sd == nil {
		return nil, nil, fmt.Errorf("the MCP server %q is not connected", t.Server)
	}
	return c, sd, nil
}

// relatedTask is the task a server's request names in its _meta, or "".
func relatedTask(meta mcp.Meta) string {
	v, _ := meta[relatedTaskKey].(map[string]any)
	id, _ := v["taskId"].(string)
	return id
}
