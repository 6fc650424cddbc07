package mcptools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

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
	script := mcptest.TaskServer(t)
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			srv := Server{Name: "tasks", Command: "node", Args: []string{script, "stdio"}}
			if tr == "http" {
				srv = Server{Name: "tasks", URL: mcptest.TaskServerHTTP(t) + "/mcp"}
			}
			m := start(t, srv)
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
	res, err = second.ResumeTask(wctx, "tasks__count", "no-such-task", tools.Hooks{})
	if err != nil || res.OK || !strings.Contains(res.Error, "no-such-task") {
		t.Fatalf("an unknown task: %+v, %v", res, err)
	}
}
