package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	centrifuge "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// browser is a centrifuge-go client playing the browser: it records every Topic
// update and Live delta, and executes delivered RTCs against an in-memory file map.
type browser struct {
	t      testing.TB
	user   string
	device string
	c      *centrifuge.Client

	mu      sync.Mutex
	offsets []int64
	updates []protocol.Update
	deltas  map[string][]protocol.Delta
	// callDeltas are the pieces of calls being written, with how many RTCs
	// the browser had seen when each came.
	callDeltas []callDeltaSeen
	rtcs       map[string]protocol.RTC // latest state seen
	turns      map[string]protocol.Turn
	messages   map[string]protocol.Message
	files      map[string]string
	executed   map[string]int
	seenRTC    map[string]bool
	execute    bool
	decide     func(r protocol.RTC) (ok bool, output any, errText string, reject bool)
	execQueue  chan protocol.RTC
	closed     chan struct{}
	modes      []string // the work modes its tokens allow (nil: all)
}

type browserOpt func(*browser)

// withModes gives the browser tokens that allow only these work modes.
func withModes(modes ...string) browserOpt { return func(b *browser) { b.modes = modes } }

func noExecute(b *browser) { b.execute = false }

func newBrowser(t testing.TB, s endpoint, user, device string, opts ...browserOpt) *browser {
	t.Helper()
	b := &browser{t: t, user: user, device: device, deltas: map[string][]protocol.Delta{}, rtcs: map[string]protocol.RTC{},
		turns: map[string]protocol.Turn{}, messages: map[string]protocol.Message{}, files: map[string]string{},
		executed: map[string]int{}, seenRTC: map[string]bool{}, execute: true, execQueue: make(chan protocol.RTC, 1024), closed: make(chan struct{})}
	for _, o := range opts {
		o(b)
	}
	ver := s.verifier()
	tok, _, err := ver.IssueWithModes(user, time.Hour, b.modes)
	if err != nil {
		t.Fatal(err)
	}
	b.c = centrifuge.NewJsonClient(s.wsURL(), centrifuge.Config{
		Token: tok,
		Data:  jsonOf(map[string]string{"device_id": device}),
		GetToken: func(centrifuge.ConnectionTokenEvent) (string, error) {
			tok, _, err := ver.IssueWithModes(user, time.Hour, b.modes)
			return tok, err
		},
		MinReconnectDelay: 50 * time.Millisecond,
		MaxReconnectDelay: 500 * time.Millisecond,
	})
	b.c.OnPublication(b.onPublication)
	if err := b.c.Connect(); err != nil {
		t.Fatal(err)
	}
	go b.execLoop()
	t.Cleanup(func() {
		b.close()
		if t.Failed() {
			b.dump()
		}
	})
	waitFor(t, "connected", 5*time.Second, func() bool { return b.c.State() == centrifuge.StateConnected })
	return b
}

func (b *browser) close() {
	select {
	case <-b.closed:
	default:
		close(b.closed)
		b.c.Close()
	}
}

func (b *browser) onPublication(e centrifuge.ServerPublicationEvent) {
	switch {
	case strings.HasPrefix(e.Channel, "topic:"):
		var u protocol.Update
		if err := json.Unmarshal(e.Data, &u); err != nil {
			b.t.Errorf("bad update: %v", err)
			return
		}
		if int64(e.Offset) != u.Offset {
			b.t.Errorf("publication offset %d, payload offset %d", e.Offset, u.Offset)
		}
		b.apply(u)
	case strings.HasPrefix(e.Channel, "live:"):
		var d protocol.Delta
		if err := json.Unmarshal(e.Data, &d); err != nil {
			b.t.Errorf("bad delta: %v", err)
			return
		}
		if d.Type == protocol.CallDeltaType {
			var cd protocol.CallDelta
			if err := json.Unmarshal(e.Data, &cd); err != nil {
				b.t.Errorf("bad call delta: %v", err)
				return
			}
			b.mu.Lock()
			b.callDeltas = append(b.callDeltas, callDeltaSeen{cd, len(b.rtcs)})
			b.mu.Unlock()
			return
		}
		b.mu.Lock()
		b.deltas[d.MessageID] = append(b.deltas[d.MessageID], d)
		b.mu.Unlock()
	}
}

type callDeltaSeen struct {
	protocol.CallDelta
	rtcsBefore int
}

func (b *browser) apply(u protocol.Update) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.offsets = append(b.offsets, u.Offset)
	b.updates = append(b.updates, u)
	for _, ch := range u.Changes {
		switch ch.Type {
		case protocol.UpdRTCUpdated:
			var r protocol.RTC
			_ = json.Unmarshal(ch.Data, &r)
			b.rtcs[r.ID] = r
			if r.Status == protocol.RTCPending && b.execute && !b.seenRTC[r.ID] {
				b.seenRTC[r.ID] = true
				b.execQueue <- r
			}
		case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
			var tr protocol.Turn
			_ = json.Unmarshal(ch.Data, &tr)
			b.turns[tr.ID] = tr
		case protocol.UpdMessageCreated, protocol.UpdMessageUpdated:
			var m protocol.Message
			_ = json.Unmarshal(ch.Data, &m)
			b.messages[m.ID] = m
		}
	}
}

// execLoop executes RTCs one at a time, as the browser SDK does.
func (b *browser) execLoop() {
	for {
		select {
		case <-b.closed:
			return
		case r := <-b.execQueue:
			b.run(r)
		}
	}
}

func (b *browser) run(r protocol.RTC) {
	if r.Executor == protocol.RTCExecutorServer {
		b.confirmServerCall(r)
		return
	}
	if err := b.retry(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "exec-" + r.ID}); err != nil {
		b.t.Errorf("executing %s: %v", r.ID, err)
		return
	}
	ok, out, errText, reject := b.tool(r)
	b.mu.Lock()
	b.executed[r.ID]++
	b.mu.Unlock()
	if reject {
		if err := b.retry(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected, ClientID: "res-" + r.ID}); err != nil {
			b.t.Errorf("reject %s: %v", r.ID, err)
		}
		return
	}
	req := protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "res-" + r.ID, OK: ok, Error: errText}
	if ok {
		req.Output = jsonOf(out)
	}
	if err := b.retry(protocol.MethodRTCSubmitResult, req); err != nil {
		b.t.Errorf("submit %s: %v", r.ID, err)
	}
}

// retry calls a method until it answers, as the browser SDK's outbox does: a
// transport failure (the connection dropped mid-call) is retried with the same
// client_id; an answer, success or protocol error, ends it.
func (b *browser) retry(method string, params any) error {
	deadline := time.Now().Add(20 * time.Second)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := b.call(ctx, method, params)
		cancel()
		var pe *protocol.Error
		if err == nil || errors.As(err, &pe) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-b.closed:
			return err
		case <-time.After(wait):
		}
	}
}

// tool runs the call against the in-memory file map.
func (b *browser) tool(r protocol.RTC) (ok bool, output any, errText string, reject bool) {
	if b.decide != nil {
		return b.decide(r)
	}
	var args struct{ Path, Content string }
	_ = json.Unmarshal(r.Arguments, &args)
	b.mu.Lock()
	defer b.mu.Unlock()
	switch r.ToolName {
	case "write":
		b.files[args.Path] = args.Content
		return true, fmt.Sprintf("wrote %d bytes to %s", len(args.Content), args.Path), "", false
	case "read":
		c, found := b.files[args.Path]
		if !found {
			return false, nil, "ENOENT: " + args.Path, false
		}
		return true, c, "", false
	case "ls":
		var names []string
		for p := range b.files {
			names = append(names, p)
		}
		sort.Strings(names)
		return true, strings.Join(names, "\n"), "", false
	}
	return false, nil, "tool not available in this test client: " + r.ToolName, false
}

// call runs an RPC and decodes protocol errors.
func (b *browser) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	res, err := b.c.RPC(ctx, method, jsonOf(params))
	if err != nil {
		var ce *centrifuge.Error
		if errors.As(err, &ce) {
			return nil, &protocol.Error{Code: protocol.CodeFromRPC(ce.Code), Message: ce.Message}
		}
		return nil, err
	}
	return res.Data, nil
}

func (b *browser) mustCall(method string, params any, out any) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	data, err := b.call(ctx, method, params)
	if err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			b.t.Fatal(err)
		}
	}
}

func (b *browser) send(sessionID, text string) protocol.MessageSendResult {
	b.t.Helper()
	var res protocol.MessageSendResult
	b.mustCall(protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: fmt.Sprintf("msg-%d", time.Now().UnixNano()),
		SessionID: sessionID, Content: protocol.MessageContent{Text: text}}, &res)
	return res
}

func (b *browser) turn(id string) (protocol.Turn, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tr, ok := b.turns[id]
	return tr, ok
}

func (b *browser) waitTurn(id string, timeout time.Duration) protocol.Turn {
	b.t.Helper()
	waitFor(b.t, "turn "+id+" to end", timeout, func() bool {
		tr, ok := b.turn(id)
		return ok && protocol.TurnTerminal(tr.Status)
	})
	tr, _ := b.turn(id)
	return tr
}

// waitOffset waits until the client has seen the updates up to top.
func (b *browser) waitOffset(top int64) {
	b.t.Helper()
	waitFor(b.t, fmt.Sprintf("offset %d", top), 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.offsets) > 0 && b.offsets[len(b.offsets)-1] >= top
	})
}

// checkOffsets asserts the client saw offsets 1..N exactly once each.
func (b *browser) checkOffsets() int {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, o := range b.offsets {
		if o != int64(i+1) {
			b.t.Fatalf("offsets not contiguous at %d: %v", i, b.offsets)
		}
	}
	return len(b.offsets)
}

// assistantMessages returns the final assistant messages of a session, by seq.
func (b *browser) assistantMessages(sessionID string) []protocol.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []protocol.Message
	for _, m := range b.messages {
		if m.SessionID == sessionID && m.Role == protocol.RoleAssistant {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

func (b *browser) deltaText(messageID string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ds := b.deltas[messageID]
	var sb strings.Builder
	for i, d := range ds {
		if d.Seq != int64(i+1) {
			b.t.Errorf("delta seq %d at %d", d.Seq, i)
		}
		sb.WriteString(d.Delta)
	}
	return sb.String()
}

// changesOf returns the data of every change of type typ in ups, in order.
func changesOf(ups []protocol.Update, typ string) []json.RawMessage {
	var out []json.RawMessage
	for _, u := range ups {
		for _, c := range u.Changes {
			if c.Type == typ {
				out = append(out, c.Data)
			}
		}
	}
	return out
}

// dump logs what the client saw, to explain a failure.
func (b *browser) dump() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.updates {
		for _, c := range u.Changes {
			b.t.Logf("%s saw %d %s %.200s", b.user, u.Offset, c.Type, c.Data)
		}
	}
}
