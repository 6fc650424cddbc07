package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// taskHooks records what a task's call reports.
type taskHooks struct {
	mu       sync.Mutex
	tasks    []string
	messages []string
	asked    []string
	counted  []float64 // progress notifications of the task
}

func (h *taskHooks) hooks(answer string) Hooks {
	return Hooks{
		Task: func(id string) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.tasks = append(h.tasks, id)
			return nil
		},
		Progress: func(p protocol.RTCProgress) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.messages = append(h.messages, p.Message)
			if p.Total > 0 {
				h.counted = append(h.counted, p.Progress)
			}
		},
		Ask: func(_ context.Context, q tools.Question) (tools.ElicitAnswer, error) {
			h.mu.Lock()
			h.asked = append(h.asked, q.Message)
			h.mu.Unlock()
			return tools.ElicitAnswer{Action: "accept", Content: map[string]any{"answer": answer}}, nil
		},
	}
}

func (h *taskHooks) task(t *testing.T) string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.tasks) != 1 || h.tasks[0] == "" {
		t.Fatalf("tasks reported: %q", h.tasks)
	}
	return h.tasks[0]
}

// TestTaskCalls: a tool that requires tasks is offered once its server
// declares tasks for tools/call, and its call is a task: its id is told
// before the wait, its status messages are the call's progress, a question
// it asks for the task (input_required) reaches the call's Asker, and its
// result is the call's. Over stdio (the question read by the SDK) and
// Streamable HTTP (the question read on the side request's own stream).
func TestTaskCalls(t *testing.T) {
	url := func(t testing.TB) string { return mcptest.TaskServerHTTP(t) + "/mcp" }
	overBoth(t, "tasks", mcptest.TaskServer(t), url, func(t *testing.T, m *Manager) {
		count, ok := m.Lookup("tasks__count")
		if !ok || !count.Task || !count.ForModel {
			t.Fatalf("count: %+v, %v", count, ok)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()

		var h taskHooks
		res, err := m.Call(ctx, "tasks__count", json.RawMessage(`{"steps":4,"ms":150}`), h.hooks(""))
		if err != nil {
			t.Fatal(err)
		}
		if got := outputText(t, res); got != "counted to 4" {
			t.Fatalf("count: %q", got)
		}
		h.task(t)
		if !strings.Contains(strings.Join(h.messages, "|"), "step ") {
			t.Fatalf("no status message as progress: %q", h.messages)
		}
		if strings.HasSuffix(t.Name(), "/stdio") && len(h.counted) == 0 {
			// Over HTTP this server sends them nowhere (TestSideStream
			// reads them from a side request's stream).
			t.Fatalf("no progress notification of the task reached the call: %q", h.messages)
		}

		var q taskHooks
		res, err = m.Call(ctx, "tasks__ask", json.RawMessage(`{"question":"Which colour?"}`), q.hooks("green"))
		if err != nil {
			t.Fatal(err)
		}
		if got := outputText(t, res); got != "the answer: green" {
			t.Fatalf("ask: %q (asked %q)", got, q.asked)
		}
		if len(q.asked) != 1 || q.asked[0] != "Which colour?" {
			t.Fatalf("asked: %q", q.asked)
		}
	})
}

// TestTaskResumedAfterRestart: a task call cut off by its context (the
// worker stopping) leaves the task running; another client, connected anew
// as after a restart, waits for the same task by its id and gets its
// result without calling the tool again. A task cancelled ends as a failed
// result, and one the server does not know is a failed result too.
func TestTaskResumedAfterRestart(t *testing.T) {
	url := mcptest.TaskServerHTTP(t)
	srv := Server{Name: "tasks", URL: url + "/mcp"}
	first := start(t, srv)
	var h taskHooks
	ctx, cancel := context.WithCancel(context.Background())
	hooks := h.hooks("")
	hooks.Task = func(id string) error {
		h.mu.Lock()
		h.tasks = append(h.tasks, id)
		h.mu.Unlock()
		cancel() // the worker stops just after the task began
		return nil
	}
	if _, err := first.Call(ctx, "tasks__count", json.RawMessage(`{"steps":3,"ms":200}`), hooks); err == nil {
		t.Fatal("a call cut off returned no error")
	}
	id := h.task(t)
	first.Close()

	second := start(t, srv)
	wctx, wcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer wcancel()
	res, err := second.ResumeTask(wctx, "tasks__count", id, tools.Hooks{})
	if err != nil || !res.OK || !strings.Contains(string(res.Output), "counted to 3") {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
	if got := mcptest.ServerTasks(t, url); len(got) != 1 || got[id] != "completed" {
		t.Fatalf("the tool ran again, or its task did not end: %v", got)
	}

	// Cancelled: the call that waits for it ends with a failed result.
	var c taskHooks
	cctx, ccancel := context.WithCancel(context.Background())
	hooks = c.hooks("")
	hooks.Task = func(id string) error {
		c.mu.Lock()
		c.tasks = append(c.tasks, id)
		c.mu.Unlock()
		ccancel()
		return nil
	}
	_, _ = second.Call(cctx, "tasks__count", json.RawMessage(`{"steps":50,"ms":100}`), hooks)
	cid := c.task(t)
	if err := second.CancelTask(wctx, "tasks__count", cid); err != nil {
		t.Fatal(err)
	}
	res, err = second.ResumeTask(wctx, "tasks__count", cid, tools.Hooks{})
	if err != nil || res.OK || !strings.Contains(res.Error, cid) {
		t.Fatalf("a cancelled task: %+v, %v", res, err)
	}
	if _, err := second.ResumeTask(wctx, "tasks__count", "no-such-task", tools.Hooks{}); !errors.Is(err, tools.ErrTaskGone) || !strings.Contains(err.Error(), "no-such-task") {
		t.Fatalf("an unknown task: %v", err)
	}
}

// TestSideStream: a side request's answer on an event stream is found among
// the server's other messages: a progress notification goes to its hook, a
// request of the server is served and its answer posted back in the same
// session, and an event over the limit fails the request instead of growing
// without bound.
func TestSideStream(t *testing.T) {
	var mu sync.Mutex
	var posted []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posted = append(posted, r.Header.Get("Mcp-Session-Id")+" "+string(body))
		mu.Unlock()
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		switch req.Method {
		case "":
			w.WriteHeader(http.StatusAccepted) // an answer to the server's request
		case "big":
			w.Header().Set("Content-Type", "text/event-stream")
			for range 64 {
				fmt.Fprintf(w, "data: %s\n", strings.Repeat("x", 1000))
			}
			fmt.Fprint(w, "\n")
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n")
			fmt.Fprint(w, "data: \"params\":{\"progressToken\":\"rtcagent-1\",\"progress\":2,\"total\":4}}\n\n")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\n")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"ok\":true}}\n\n", req.ID)
		}
	}))
	t.Cleanup(hs.Close)
	var progress []float64
	s := newHTTPSide(hs.URL, hs.Client(), 16<<10,
		func(ctx context.Context, method string, params json.RawMessage) (any, error) {
			return (&Manager{}).serveSide(nil)(ctx, method, params)
		}, nil, func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) })
	s.note(httptest.NewRequest(http.MethodPost, "/", nil)) // nothing to note
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Header.Set("Mcp-Session-Id", "sess-1")
	s.note(req)
	res, err := s.call(t.Context(), "tasks/result", map[string]any{"taskId": "t1"})
	if err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("answer %s, %v", res, err)
	}
	if len(progress) != 1 || progress[0] != 2 {
		t.Fatalf("progress %v", progress)
	}
	mu.Lock()
	if len(posted) != 2 || !strings.HasPrefix(posted[1], `sess-1 {"id":7,"jsonrpc":"2.0","result":{}}`) {
		t.Fatalf("posted %q", posted)
	}
	mu.Unlock()
	if _, err := s.call(t.Context(), "big", nil); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("an event over the limit: %v", err)
	}
	s.close()
	if _, err := s.call(t.Context(), "tasks/get", nil); !errors.Is(err, errNotConnected) {
		t.Fatalf("after close: %v", err)
	}
}
