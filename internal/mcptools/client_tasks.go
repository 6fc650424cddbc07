package mcptools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The client runs tasks for servers too (the tasks extension's other
// direction): a server may send its request to use the model or its question
// as a task, get a task at once, and ask for its status and result later.
// The Go SDK neither declares the client's tasks capability nor answers
// tasks/* requests, so: the SDK's initialize request gets the capability
// added on its way out (declareTasks), and the server's requests this file
// serves are taken out of what the SDK reads (on stdio by the line guard, on
// Streamable HTTP by the line tee of the SDK's answers) and answered beside
// it. A client task is the same request to use the model or question, asked
// under the call in flight as the SDK would ask it, run in the background.

// clientTasksCapability is what the client declares: tasks for requests to
// use the model and for questions, listed and cancelled on request.
var clientTasksCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}`)

// Bounds of the tasks a server may have the client run: running at once per
// connection (ended ones are kept until their TTL or until room is needed),
// and how long one is kept (its TTL, at most this).
const (
	maxClientTasks   = 32
	maxClientTaskTTL = 30 * time.Minute
	clientTaskPoll   = 1000 // ms, suggested to the server
)

// declareTasks adds the client's tasks capability to msg when it is the
// initialize request, and returns msg unchanged otherwise.
func declareTasks(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"initialize"`)) || !bytes.Contains(msg, []byte(`"capabilities"`)) {
		return msg
	}
	var req map[string]json.RawMessage
	if json.Unmarshal(msg, &req) != nil || string(req["method"]) != `"initialize"` {
		return msg
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(req["params"], &params) != nil {
		return msg
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(params["capabilities"], &caps) != nil || caps == nil {
		return msg
	}
	caps["tasks"] = clientTasksCapability
	var err error
	if params["capabilities"], err = json.Marshal(caps); err != nil {
		return msg
	}
	if req["params"], err = json.Marshal(params); err != nil {
		return msg
	}
	out, err := json.Marshal(req)
	if err != nil {
		return msg
	}
	if bytes.HasSuffix(msg, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// clientTask is one task the client runs for a server.
type clientTask struct {
	id      string
	created time.Time
	ttl     time.Duration
	cancel  context.CancelFunc
	done    chan struct{} // closed when it ended

	mu      sync.Mutex
	status  string
	updated time.Time
	result  json.RawMessage // once completed
	err     *rpcError       // once failed
	// waiting: the answers owed to tasks/result requests made before the
	// task ended, at most maxResultWaits.
	waiting []func(json.RawMessage, *rpcError)
}

// maxResultWaits bounds the tasks/result requests one task keeps waiting.
const maxResultWaits = 4

func (t *clientTask) state() map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	return map[string]any{"taskId": t.id, "status": t.status, "createdAt": t.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt": t.updated.UTC().Format(time.RFC3339Nano), "ttl": t.ttl.Milliseconds(), "pollInterval": clientTaskPoll}
}

// end records how the task ended and answers the tasks/result requests
// waiting for it, once: it reports whether this call ended it.
func (t *clientTask) end(status string, result json.RawMessage, err *rpcError) bool {
	t.mu.Lock()
	select {
	case <-t.done:
		t.mu.Unlock()
		return false
	default:
	}
	t.status, t.result, t.err, t.updated = status, result, err, time.Now()
	close(t.done)
	waiting := t.waiting
	t.waiting = nil
	t.mu.Unlock()
	for _, answer := range waiting {
		answer(result, err)
	}
	return true
}

// onResult answers now when the task has ended, else once it ends; false
// when too many requests wait already.
func (t *clientTask) onResult(answer func(json.RawMessage, *rpcError)) bool {
	t.mu.Lock()
	select {
	case <-t.done:
		res, err := t.result, t.err
		t.mu.Unlock()
		answer(res, err)
		return true
	default:
	}
	defer t.mu.Unlock()
	if len(t.waiting) >= maxResultWaits {
		return false
	}
	t.waiting = append(t.waiting, answer)
	return true
}

func (t *clientTask) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// clientTasks are the tasks the client runs for one connection's server.
type clientTasks struct {
	mu    sync.Mutex
	tasks map[string]*clientTask
	life  context.Context // ends with the connection: so do its tasks
	end   context.CancelFunc
}

func newClientTasks() *clientTasks {
	life, end := context.WithCancel(context.Background())
	return &clientTasks{tasks: map[string]*clientTask{}, life: life, end: end}
}

func (ct *clientTasks) close() { ct.end() }

// serverRequest is the part of a server's message the client's tasks read.
type serverRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// takeRequest serves a server's request the SDK cannot (tasks/*, or a
// request to use the model or a question sent as a task) and reports whether
// it did; the answer goes to reply, maybe later. Other messages are left to
// the SDK.
func (m *Manager) takeRequest(c *conn, ct *clientTasks, msg []byte, reply func([]byte)) bool {
	msg = bytes.TrimSpace(bytes.TrimPrefix(msg, []byte("data:")))
	if !bytes.Contains(msg, []byte(`"tasks/`)) && !bytes.Contains(msg, []byte(`"task"`)) {
		return false
	}
	var req serverRequest
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 || string(req.ID) == "null" {
		return false
	}
	answer := func(result any, err *rpcError) {
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if err != nil {
			out["error"] = err
		} else {
			out["result"] = result
		}
		if b, merr := json.Marshal(out); merr == nil {
			reply(b)
		}
	}
	switch req.Method {
	case "sampling/createMessage", "elicitation/create":
		var p struct {
			Task *struct {
				TTL *float64 `json:"ttl"`
			} `json:"task"`
		}
		if json.Unmarshal(req.Params, &p) != nil || p.Task == nil {
			return false // not a task: the SDK serves it
		}
		ttl := maxClientTaskTTL
		if p.Task.TTL != nil && *p.Task.TTL > 0 && *p.Task.TTL < float64(maxClientTaskTTL/time.Millisecond) {
			// At least a second: the TTL bounds the person's answer too.
			ttl = max(time.Duration(*p.Task.TTL)*time.Millisecond, time.Second)
		}
		t, err := ct.start(ttl)
		if err != nil {
			answer(nil, err)
			return true
		}
		answer(map[string]any{"task": t.state()}, nil)
		go m.runClientTask(c, ct, t, req.Method, req.Params)
	case "tasks/get", "tasks/result", "tasks/cancel":
		var p struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(req.Params, &p)
		t := ct.get(p.TaskID)
		if t == nil {
			answer(nil, &rpcError{Code: -32602, Message: "task not found"})
			return true
		}
		switch req.Method {
		case "tasks/get":
			answer(t.state(), nil)
		case "tasks/cancel":
			if !t.end("cancelled", nil, &rpcError{Code: -32603, Message: "the task was cancelled"}) {
				answer(nil, &rpcError{Code: -32602, Message: "the task has ended already"})
				return true
			}
			t.cancel()
			answer(t.state(), nil)
		default: // tasks/result: once the task has ended
			if !t.onResult(func(res json.RawMessage, rerr *rpcError) {
				if rerr != nil {
					answer(nil, rerr)
				} else {
					answer(res, nil)
				}
			}) {
				answer(nil, &rpcError{Code: -32603, Message: "too many requests wait for this task's result"})
			}
		}
	case "tasks/list":
		answer(map[string]any{"tasks": ct.list()}, nil)
	default:
		return false
	}
	return true
}

// start makes a task, unless the connection has as many live ones as it
// may; tasks past their TTL are forgotten first.
func (ct *clientTasks) start(ttl time.Duration) (*clientTask, *rpcError) {
	now := time.Now()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	var ended []*clientTask
	for id, t := range ct.tasks {
		switch {
		case now.Sub(t.created) > t.ttl:
			t.cancel()
			delete(ct.tasks, id)
		case t.ended():
			ended = append(ended, t)
		}
	}
	// Only running tasks count: the oldest ended ones make room.
	sort.Slice(ended, func(i, j int) bool { return ended[i].created.Before(ended[j].created) })
	for len(ct.tasks) >= maxClientTasks && len(ended) > 0 {
		ended[0].cancel()
		delete(ct.tasks, ended[0].id)
		ended = ended[1:]
	}
	if len(ct.tasks) >= maxClientTasks {
		return nil, &rpcError{Code: -32603, Message: "too many tasks running for this client"}
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	ctx, cancel := context.WithTimeout(ct.life, ttl)
	t := &clientTask{id: hex.EncodeToString(b), created: now, updated: now, ttl: ttl, cancel: cancel, done: make(chan struct{}), status: "working"}
	ct.tasks[t.id] = t
	context.AfterFunc(ctx, func() { t.end("failed", nil, &rpcError{Code: -32603, Message: "the task ran out of time"}) })
	return t, nil
}

func (ct *clientTasks) get(id string) *clientTask {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.tasks[id]
}

func (ct *clientTasks) list() []map[string]any {
	ct.mu.Lock()
	ts := make([]*clientTask, 0, len(ct.tasks))
	for _, t := range ct.tasks {
		ts = append(ts, t)
	}
	ct.mu.Unlock()
	sort.Slice(ts, func(i, j int) bool { return ts[i].created.Before(ts[j].created) })
	out := make([]map[string]any, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.state())
	}
	return out
}

// runClientTask serves the request of task t as the SDK would serve it
// without a task, and records its outcome.
func (m *Manager) runClientTask(c *conn, ct *clientTasks, t *clientTask, method string, params json.RawMessage) {
	ctx, cancel := context.WithCancel(ct.life)
	defer cancel()
	defer t.cancel() // its TTL's timer is not needed once it ended
	go func() {
		select {
		case <-t.done: // cancelled, or out of time
			cancel()
		case <-ctx.Done():
		}
	}()
	var res any
	var err error
	switch method {
	case "sampling/createMessage":
		var p mcp.CreateMessageParams
		if err = json.Unmarshal(params, &p); err == nil {
			res, err = m.sample(ctx, c, &mcp.CreateMessageRequest{Params: &p})
		}
	default:
		var p mcp.ElicitParams
		if err = json.Unmarshal(params, &p); err == nil {
			res, err = m.elicit(ctx, c, &mcp.ElicitRequest{Params: &p})
		}
	}
	if err != nil {
		t.end("failed", nil, &rpcError{Code: -32603, Message: protocol.Cut(err.Error(), 1<<10)})
		return
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.end("failed", nil, &rpcError{Code: -32603, Message: "the answer could not be encoded"})
		return
	}
	// The result names its task, as the spec has tasks/result do.
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) == nil {
		obj["_meta"], _ = json.Marshal(map[string]any{relatedTaskKey: map[string]string{"taskId": t.id}})
		if withMeta, err := json.Marshal(obj); err == nil {
			b = withMeta
		}
	}
	t.end("completed", b, nil)
}
