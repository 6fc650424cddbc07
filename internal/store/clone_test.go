package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// A clone equals its original, and changing anything reachable from it
// (through pointers, slices, maps and interfaces) leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	at := time.Date(2026, 12, 6, 1, 2, 3, 4, time.UTC)
	r := &protocol.RTC{ID: "r", Arguments: json.RawMessage(`{"a":1}`), DeadlineAt: &at,
		Decision: &protocol.Decision{Decision: protocol.DecisionAllow, At: at},
		Progress: &protocol.RTCProgress{Progress: 1},
		Audit: &protocol.AuditState{WorkMode: "edit", DeliveredAt: &at, Decision: protocol.AuditDecision{At: &at, Outcome: "allowed"},
			Execution: &protocol.RTCExecution{}}}
	c := Clone(r)
	if !reflect.DeepEqual(c, r) {
		t.Fatalf("clone %+v differs from %+v", c, r)
	}
	want := Clone(r)
	c.Arguments[2] = 'b'
	*c.DeadlineAt = at.Add(time.Hour)
	c.Decision.Decision = protocol.DecisionDeny
	c.Progress.Progress = 2
	c.Audit.WorkMode = "plan"
	*c.Audit.DeliveredAt = at.Add(time.Hour)
	*c.Audit.Decision.At = at.Add(time.Hour)
	c.Audit.Execution.Outcome = "changed"
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("changing the clone changed the original: %+v", r)
	}

	s := &protocol.Session{ID: "s", Approvals: []protocol.ToolApproval{{Tool: "write", GrantedAt: at}}}
	cs := Clone(s)
	cs.Approvals[0].Tool = "ls"
	if s.Approvals[0].Tool != "write" {
		t.Fatalf("changing the clone's approvals changed the original's")
	}
	m := map[string]any{"k": []int{1}}
	cm := *Clone(&m)
	cm["k"].([]int)[0] = 2
	if m["k"].([]int)[0] != 1 {
		t.Fatalf("changing the clone's map changed the original's")
	}
}

// What CloneAsDecoded gives is what decoding the entity's encoding gives
// (but for the fields the encoding leaves out, which it keeps): raw JSON
// compacted and HTML-escaped or null, invalid UTF-8 replaced, empty lists
// left out, times at UTC.
func TestCloneAsDecodedIsTheDecoding(t *testing.T) {
	local := time.Date(2026, 12, 6, 1, 2, 3, 4, time.FixedZone("here", 0))
	check := func(name string, v any, fresh func() any, clear func(any)) {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want := fresh()
		if err := json.Unmarshal(data, want); err != nil {
			t.Fatal(err)
		}
		got := CloneAsDecoded(v)
		clear(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: clone %+v\n decoded %+v", name, got, want)
		}
	}
	m := &protocol.Message{ID: "m", Text: "bad \xff\xfe utf-8 <b>", ToolCalls: []protocol.ToolCall{{ID: "c", Name: "write",
		Arguments: json.RawMessage(`{"path": "/a<b>.txt",  "n": [1, 2]}`)}}, CreatedAt: local}
	check("message", m, func() any { return new(protocol.Message) }, func(any) {})
	r := &protocol.RTC{ID: "r", ToolName: "ls", CreatedAt: local, Output: json.RawMessage("{ }"), Audit: &protocol.AuditState{}}
	check("rtc", r, func() any { return new(protocol.RTC) }, func(v any) { v.(*protocol.RTC).Audit = nil })
	compact := &protocol.RTC{ID: "r2", Arguments: json.RawMessage(`{"path":"/é","n":[1,2.50]}`), Output: json.RawMessage(`"a\u003cb"`)}
	check("rtc with compact raw JSON", compact, func() any { return new(protocol.RTC) }, func(any) {})
	s := &protocol.Session{ID: "s", Approvals: []protocol.ToolApproval{}, UpdatedAt: time.Now()}
	check("session", s, func() any { return new(protocol.Session) }, func(any) {})
	tr := &protocol.Turn{ID: "t", Tools: []protocol.HostTool{}, Checkpoint: &protocol.TurnCheckpoint{}}
	check("turn", tr, func() any { return new(protocol.Turn) }, func(v any) { v.(*protocol.Turn).Checkpoint = nil })
}

// A type that refers to itself is copied whole, also when many goroutines
// copy it first at once (its copy is worked out once, the others wait).
func TestCloneOfASelfReferringType(t *testing.T) {
	type node struct {
		Name     string
		Next     *node
		Children []node
		Meta     map[string]any
	}
	n := &node{Name: "a", Next: &node{Name: "b", Next: &node{Name: "c"}}, Children: []node{{Name: "d", Meta: map[string]any{"k": []any{"v"}}}}}
	done := make(chan *node, 8)
	for range cap(done) {
		go func() { done <- Clone(n) }()
	}
	for range cap(done) {
		c := <-done
		if !reflect.DeepEqual(c, n) {
			t.Fatalf("clone %+v differs from %+v", c, n)
		}
		c.Next.Next.Name = "changed"
		c.Children[0].Meta["k"].([]any)[0] = "changed"
		if n.Next.Next.Name != "c" || n.Children[0].Meta["k"].([]any)[0] != "v" {
			t.Fatal("changing a clone changed the original")
		}
	}
}
