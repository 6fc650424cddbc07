package simclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

const script = `{"name": "sim", "turns": [{"steps": [
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"chunks": ["got ", "{{last_result}}"]}
]}]}`

func start(t *testing.T) *testserver.Server {
	t.Helper()
	m, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return testserver.Start(t, m, testserver.Options{Logs: io.Discard})
}

func dial(t *testing.T, s *testserver.Server, user string, tool simclient.ToolFunc) *simclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := simclient.Dial(ctx, simclient.Config{URL: s.WSURL(), Token: s.Token(t, user, time.Hour), DeviceID: "dev", Tool: tool, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestTurnWithToolCalls(t *testing.T) {
	s := start(t)
	c := dial(t, s, "alice", func(context.Context, protocol.RTC) simclient.Result {
		return simclient.Result{OK: true, Output: "a.txt"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Send(ctx, "", "m1", "go")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.WaitTurn(ctx, res.TurnID)
	if err != nil || tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s: %v", tr.Status, err)
	}
	if c.Executed() != 2 {
		t.Fatalf("executed %d RTCs", c.Executed())
	}
	ups := c.Updates()
	if len(ups) == 0 || ups[0].Offset != 1 {
		t.Fatalf("updates %d", len(ups))
	}
	for i, u := range ups {
		if u.Offset != int64(i+1) {
			t.Fatalf("offset %d at %d", u.Offset, i)
		}
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	// The final answer's deltas were recorded.
	var text string
	for _, u := range ups {
		for _, ch := range u.Changes {
			if ch.Type == protocol.UpdMessageUpdated && strings.Contains(string(ch.Data), `"got `) {
				var m protocol.Message
				_ = jsonUnmarshal(ch.Data, &m)
				for _, d := range c.Deltas(m.ID) {
					text += d.Delta
				}
			}
		}
	}
	if !strings.HasPrefix(text, "got ") {
		t.Fatalf("deltas %q", text)
	}
}

func TestRPCErrorsAreProtocolErrors(t *testing.T) {
	s := start(t)
	c := dial(t, s, "bob", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.Call(ctx, protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: "nope", ClientID: "x", OK: true, Output: []byte(`1`)}, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code == "" {
		t.Fatalf("error %v (%T)", err, err)
	}
}

func TestRejectedRTCFailsNothingClientSide(t *testing.T) {
	s := start(t)
	c := dial(t, s, "carol", func(context.Context, protocol.RTC) simclient.Result { return simclient.Result{Reject: true} })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Send(ctx, "", "m1", "go")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitTurn(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if c.Executed() == 0 {
		t.Fatal("no RTC ran")
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
