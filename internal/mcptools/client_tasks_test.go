package mcptools

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// TestClientTasks: the client declares tasks for requests to use the model
// and for questions, so server-everything lists its two "-async" tools; a
// request or question it sends as a task gets a task at once, is asked
// under the call as without a task, and the server reads its status and
// result by polling. Over stdio and Streamable HTTP.
func TestClientTasks(t *testing.T) {
	overBoth(t, "every", mcptest.Everything(t), mcptest.EverythingHTTP, func(t *testing.T, m *Manager) {
		for _, name := range []string{"every__trigger-sampling-request-async", "every__trigger-elicitation-request-async", "every__simulate-research-query"} {
			if _, ok := m.Lookup(name); !ok {
				t.Fatalf("%s is not listed", name)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var mu sync.Mutex
		var asked []string
		h := Hooks{
			Sample: func(_ context.Context, q tools.SampleRequest) (tools.SampleResult, error) {
				mu.Lock()
				asked = append(asked, "sample: "+q.Messages[0].Text)
				mu.Unlock()
				return tools.SampleResult{Text: "a haiku of tasks", Model: "test-model"}, nil
			},
			Ask: func(_ context.Context, q tools.Question) (tools.ElicitAnswer, error) {
				mu.Lock()
				asked = append(asked, "ask: "+q.Message)
				mu.Unlock()
				return tools.ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Ada", "favoriteColor": "Green"}}, nil
			},
		}
		res, err := m.Call(ctx, "every__trigger-sampling-request-async", json.RawMessage(`{"prompt":"tasks","maxTokens":20}`), h)
		if err != nil {
			t.Fatal(err)
		}
		got := outputText(t, res)
		if !strings.Contains(got, "[COMPLETED] Async sampling completed!") || !strings.Contains(got, "a haiku of tasks") || !strings.Contains(got, "Task created") {
			t.Fatalf("sampling: %s", got)
		}
		res, err = m.Call(ctx, "every__trigger-elicitation-request-async", json.RawMessage(`{}`), h)
		if err != nil {
			t.Fatal(err)
		}
		if got := outputText(t, res); !strings.Contains(got, "[COMPLETED] User provided the requested information!") || !strings.Contains(got, "Ada") {
			t.Fatalf("question: %s", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 2 || !strings.HasPrefix(asked[0], "sample: ") || !strings.HasPrefix(asked[1], "ask: Please provide inputs") {
			t.Fatalf("asked %q", asked)
		}
	})
}

// TestClientTaskStates: a client task's cancel ends it once (a task that
// ended already refuses the cancel), its result is answered to the requests
// that waited for it, at most maxResultWaits of them, and only running
// tasks count against maxClientTasks.
func TestClientTaskStates(t *testing.T) {
	release := make(chan struct{})
	c := &conn{srv: Server{Name: "x"}, calls: map[int64]*inflight{}, tasks: map[string]*inflight{}, orders: map[string][]string{}}
	c.add(&inflight{hooks: Hooks{Ask: func(ctx context.Context, q tools.Question) (tools.ElicitAnswer, error) {
		select {
		case <-release:
			return tools.ElicitAnswer{Action: "decline"}, nil
		case <-ctx.Done():
			return tools.ElicitAnswer{}, ctx.Err()
		}
	}}})
	m := &Manager{log: slog.New(slog.DiscardHandler)}
	ct := newClientTasks()
	defer ct.close()
	var mu sync.Mutex
	answers := map[string]string{}
	req := func(id, method, params string) {
		msg := `{"jsonrpc":"2.0","id":"` + id + `","method":"` + method + `","params":` + params + `}`
		if !m.takeRequest(c, ct, []byte(msg), func(b []byte) {
			mu.Lock()
			answers[id] = string(b)
			mu.Unlock()
		}) {
			t.Fatalf("%s not taken", method)
		}
	}
	answer := func(id string) string {
		t.Helper()
		var got string
		for range 200 {
			mu.Lock()
			got = answers[id]
			mu.Unlock()
			if got != "" {
				return got
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no answer to %s", id)
		return ""
	}
	taskOf := func(id string) string {
		var a struct {
			Result struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(answer(id)), &a); err != nil || a.Result.Task.TaskID == "" {
			t.Fatalf("no task in %s", answer(id))
		}
		return a.Result.Task.TaskID
	}
	ask := `{"task":{"ttl":60000},"message":"m","requestedSchema":{"type":"object","properties":{}}}`

	req("c1", "elicitation/create", ask)
	one := taskOf("c1")
	for i := range maxResultWaits + 1 {
		req("r"+strconv.Itoa(i), "tasks/result", `{"taskId":"`+one+`"}`)
	}
	if !strings.Contains(answer("r"+strconv.Itoa(maxResultWaits)), "too many requests wait") {
		t.Fatalf("waits past the bound: %s", answer("r"+strconv.Itoa(maxResultWaits)))
	}
	req("x1", "tasks/cancel", `{"taskId":"`+one+`"}`)
	if got := answer("x1"); !strings.Contains(got, `"status":"cancelled"`) {
		t.Fatalf("cancel: %s", got)
	}
	if got := answer("r0"); !strings.Contains(got, "the task was cancelled") {
		t.Fatalf("a waiting result after the cancel: %s", got)
	}
	req("x2", "tasks/cancel", `{"taskId":"`+one+`"}`)
	if got := answer("x2"); !strings.Contains(got, "-32602") {
		t.Fatalf("a second cancel: %s", got)
	}

	req("c2", "elicitation/create", ask)
	two := taskOf("c2")
	close(release) // the person declines
	req("r9", "tasks/result", `{"taskId":"`+two+`"}`)
	if got := answer("r9"); !strings.Contains(got, `"action":"decline"`) || !strings.Contains(got, two) {
		t.Fatalf("result: %s", got)
	}
	req("x3", "tasks/cancel", `{"taskId":"`+two+`"}`)
	if got := answer("x3"); !strings.Contains(got, "-32602") {
		t.Fatalf("cancel of an ended task: %s", got)
	}

	// Ended tasks make room for new ones (each is waited for to its end).
	for i := range maxClientTasks + 2 {
		n := strconv.Itoa(i)
		req("n"+n, "elicitation/create", ask)
		req("e"+n, "tasks/result", `{"taskId":"`+taskOf("n"+n)+`"}`)
		if got := answer("e" + n); !strings.Contains(got, `"action":"decline"`) {
			t.Fatalf("result of task %s: %s", n, got)
		}
	}
}
