package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/client"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

const addScript = `{"name": "add", "turns": [{"steps": [
  {"text": "Let me add.", "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
  {"chunks": ["The sum ", "is ", "{{last_result}}", "."]}
]}]}`

var addTool = client.Tool{
	Name:        "add",
	Description: "Adds two numbers.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
	Run: func(_ context.Context, args json.RawMessage) (any, error) {
		var in struct{ A, B float64 }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return in.A + in.B, nil
	},
}

// run starts c.Run and stops it at the end of the test.
func run(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// startClient makes a client with opts and tool, runs it until the end of the
// test, and returns it with a context for the test's calls.
func startClient(t *testing.T, opts client.Options, tool client.Tool) (*client.Client, context.Context) {
	t.Helper()
	c, err := client.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RegisterTool(tool); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c, ctx
}

func TestRoundTripWithGoTool(t *testing.T) {
	s := startServer(t, addScript)
	c, err := client.New(client.Options{URL: s.WSURL(), Token: s.Token(t, "alice", time.Hour), DeviceID: "go-1",
		JournalDir: t.TempDir(), WorkMode: "bypass"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RegisterTool(addTool); err != nil {
		t.Fatal(err)
	}
	// A tool without a schema is offered with an empty object schema.
	if err := c.RegisterTool(client.Tool{Name: "ping", Description: "Answers pong.", Run: func(context.Context, json.RawMessage) (any, error) { return "pong", nil }}); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reply, err := c.Send(ctx, "", "what is 2 + 3?")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []client.EventKind
	var chunks, final string
	var result *client.Event
	for ev := range reply.Events() {
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case client.EventText:
			chunks += ev.Text
		case client.EventMessage:
			final = ev.Text
		case client.EventToolResult:
			result = &ev
		case client.EventTurnEnd:
			if ev.Status != protocol.TurnCompleted {
				t.Fatalf("turn %s: %s", ev.Status, ev.Error)
			}
		}
	}
	if final != "The sum is 5." {
		t.Fatalf("final text %q (events %v)", final, kinds)
	}
	if !strings.HasSuffix(chunks, "The sum is 5.") {
		t.Fatalf("streamed text %q", chunks)
	}
	if result == nil || result.Status != protocol.RTCCompleted || string(result.Output) != "5" || result.Call.Tool != "add" {
		t.Fatalf("tool result %+v", result)
	}
	if kinds[len(kinds)-1] != client.EventTurnEnd {
		t.Fatalf("last event %v", kinds)
	}
	// The turn offered the tool with its schema.
	var tr protocol.TurnResult
	s.RPC(t, "alice", "go-1", protocol.MethodTurnGet, protocol.IDRequest{TurnID: reply.TurnID}, &tr)
	if len(tr.Turn.Tools) != 2 || tr.Turn.Tools[0].Name != "add" || !strings.Contains(string(tr.Turn.Tools[0].Parameters), `"required"`) ||
		tr.Turn.Tools[1].Name != "ping" {
		t.Fatalf("turn tools %+v", tr.Turn.Tools)
	}
	// A second message in the same session; Wait gathers the answer.
	reply2, err := c.Send(ctx, reply.SessionID, "again")
	if err != nil {
		t.Fatal(err)
	}
	res, err := reply2.Wait(ctx)
	if err != nil || res.Status != protocol.TurnCompleted {
		t.Fatalf("second turn %+v %v", res, err)
	}
}

func TestConfirmation(t *testing.T) {
	s := startServer(t, addScript)
	var asked atomic.Int32
	c, err := client.New(client.Options{URL: s.WSURL(), Token: s.Token(t, "bob", time.Hour), DeviceID: "go-1",
		Confirm: func(ctx context.Context, call client.Call) (bool, string) {
			asked.Add(1)
			if cc, ok := client.CallOf(ctx); !ok || cc.ID != call.ID || call.Tool != "add" {
				return true, ""
			}
			return false, "not now"
		}})
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	tool := addTool
	tool.Run = func(context.Context, json.RawMessage) (any, error) { ran = true; return 0, nil }
	if err := c.RegisterTool(tool); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reply, err := c.Send(ctx, "", "add please") // edit mode: host tools are confirmed
	if err != nil {
		t.Fatal(err)
	}
	var status, reason string
	for ev := range reply.Events() {
		if ev.Kind == client.EventToolResult {
			status, reason = ev.Status, ev.Error
		}
	}
	if status != protocol.RTCRejected || !strings.Contains(reason, "not now") || ran || asked.Load() != 1 {
		t.Fatalf("status %s %q ran=%v asked=%d", status, reason, ran, asked.Load())
	}
}

func TestTokenRefresh(t *testing.T) {
	s := startServer(t, addScript)
	var issued atomic.Int32
	c, ctx := startClient(t, client.Options{URL: s.WSURL(), DeviceID: "go-1", WorkMode: "bypass",
		TokenFunc: func(context.Context) (string, error) {
			issued.Add(1)
			tok, _, err := s.Srv.Verifier().Issue("carol", 3*time.Second)
			return tok, err
		}}, addTool)
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	// Past the first token's expiry the connection lives on with refreshed tokens.
	waitFor(t, "a refreshed token", 20*time.Second, func() bool { return issued.Load() >= 3 })
	reply, err := c.Send(ctx, "", "add")
	if err != nil {
		t.Fatal(err)
	}
	res, err := reply.Wait(ctx)
	if err != nil || res.Status != protocol.TurnCompleted || res.Text != "Let me add.\n\nThe sum is 5." {
		t.Fatalf("turn %+v %v", res, err)
	}
}

func TestOptionsAndToolsAreChecked(t *testing.T) {
	if _, err := client.New(client.Options{URL: "ws://x", Token: "t", DeviceID: "bad id"}); err == nil {
		t.Fatal("a device id with a space was accepted")
	}
	if _, err := client.New(client.Options{URL: "ws://x", DeviceID: "d"}); err == nil {
		t.Fatal("no token was accepted")
	}
	c, err := client.New(client.Options{URL: "ws://x", Token: "t", DeviceID: "d"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	for _, bad := range []client.Tool{
		{Name: "read", Run: run},                                          // a built-in
		{Name: "9lives", Run: run},                                        // starts with a digit
		{Name: "ok", Schema: json.RawMessage(`[1]`), Run: run},            // not an object schema
		{Name: "big", Description: strings.Repeat("x", 17<<10), Run: run}, // over 16 KiB
		{Name: "norun"},
	} {
		if err := c.RegisterTool(bad); err == nil {
			t.Errorf("tool %q accepted", bad.Name)
		}
	}
	var pe *client.Error
	if errors.As(c.RegisterTool(client.Tool{Name: "fine", Run: run}), &pe) {
		t.Fatal("a good tool was refused")
	}
}

// TestStopCancelsRunningTool: a turn stopped while a tool runs cancels the
// tool's context; the call ends failed on the server and the Reply sees the end.
func TestStopCancelsRunningTool(t *testing.T) {
	s := startServer(t, addScript)
	started, cancelled := make(chan struct{}), make(chan struct{})
	tool := addTool
	tool.Run = func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}
	c, ctx := startClient(t, client.Options{URL: s.WSURL(), Token: s.Token(t, "erin", time.Hour), DeviceID: "go-1", WorkMode: "bypass"}, tool)
	reply, err := c.Send(ctx, "", "add")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the tool did not start")
	}
	if err := c.Stop(ctx, reply.SessionID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	case <-ctx.Done():
		t.Fatal("the tool was not cancelled")
	}
	res, err := reply.Wait(ctx)
	if err != nil || res.Status != protocol.TurnStopped {
		t.Fatalf("turn %+v %v", res, err)
	}
	var l protocol.RTCListResult
	s.RPC(t, "erin", "go-1", protocol.MethodRTCList, protocol.ListRequest{SessionID: reply.SessionID}, &l)
	if len(l.RTCs) != 1 || l.RTCs[0].Status != protocol.RTCFailed {
		t.Fatalf("RTCs %+v", l.RTCs)
	}
}

// TestOffersOnlyItsOwnTools: the model's requests of a turn the Go client
// started list only the client's tools; a message sent without
// host_tools_only (any earlier client) still offers the built-in tools.
func TestOffersOnlyItsOwnTools(t *testing.T) {
	m, err := scripted.Parse([]byte(addScript))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, m, testserver.Options{})
	c, ctx := startClient(t, client.Options{URL: s.WSURL(), Token: s.Token(t, "gina", time.Hour), DeviceID: "go-1", WorkMode: "bypass"}, addTool)
	reply, err := c.Send(ctx, "", "add")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := reply.Wait(ctx); err != nil || res.Status != protocol.TurnCompleted {
		t.Fatalf("turn %+v %v", res, err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for i, r := range reqs {
		if len(r.Tools) != 1 || r.Tools[0].Name != "add" {
			t.Fatalf("request %d offers %+v", i, r.Tools)
		}
	}
	var tr protocol.TurnResult
	s.RPC(t, "gina", "go-1", protocol.MethodTurnGet, protocol.IDRequest{TurnID: reply.TurnID}, &tr)
	if !tr.Turn.HostToolsOnly {
		t.Fatalf("turn %+v", tr.Turn)
	}

	// Without the flag the server offers the built-in tools beside the host tool.
	m2, err := scripted.Parse([]byte(addScript))
	if err != nil {
		t.Fatal(err)
	}
	s2 := testserver.Start(t, m2, testserver.Options{})
	s2.RPC(t, "hal", "web-1", protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m-1", Content: protocol.MessageContent{Text: "add"},
		Tools: []protocol.HostTool{{Name: "add", Description: "Adds.", Parameters: addTool.Schema}}}, nil)
	waitFor(t, "the first model request", 20*time.Second, func() bool { return len(m2.Requests()) > 0 })
	var names []string
	for _, tl := range m2.Requests()[0].Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "read") || !strings.Contains(got, "write") || !strings.HasSuffix(got, ",add") {
		t.Fatalf("tools offered without host_tools_only: %s", got)
	}
}
