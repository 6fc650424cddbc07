package mcptools

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// TestOversizedAnswerFailsAlone: an answer over the SDK's 16 MiB stdio line
// limit fails its call with a message that says so, and the connection stays:
// the next call on the same server is answered.
func TestOversizedAnswerFailsAlone(t *testing.T) {
	m := start(t, Server{Name: "t", Command: mcptest.Binary(t)})
	_, err := m.Call(t.Context(), "t__big", json.RawMessage(`{"bytes":17000000}`), Hooks{})
	if err == nil || !strings.Contains(err.Error(), "more than the 8388608 bytes this client reads") {
		t.Fatalf("big: %v", err)
	}
	if got := outputText(t, call(t, m, "t__echo", `{"text":"still here"}`, nil)); got != "echo: still here" {
		t.Fatalf("echo: %q", got)
	}
}

// TestTaskRequiredToolsNotOffered: of a server that declares no tasks for
// tools/call, a tool listed with execution.taskSupport "required" is not
// offered (every plain call of it fails); "optional" is, called plainly.
func TestTaskRequiredToolsNotOffered(t *testing.T) {
	hs := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(hs.Close)
	for _, srv := range []Server{{Name: "stdio", Command: mcptest.Binary(t)}, {Name: "web", URL: hs.URL}} {
		m := start(t, srv)
		if _, ok := m.Lookup(srv.Name + "__tasked"); ok {
			t.Errorf("%s: the tool that requires tasks is offered", srv.Name)
		}
		if opt, ok := m.Lookup(srv.Name + "__tasked_optional"); !ok || opt.Task {
			t.Errorf("%s: the tool with optional tasks is not offered, or offered as a task: %+v", srv.Name, opt)
		}
	}
}

// TestFrameID reads the id of answers whatever the order of their members,
// and none of requests, notifications and batches.
func TestFrameID(t *testing.T) {
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"x"}]}}`: `5`,
		`{"result":{"id":"inner","s":"\"id\":7,"},"jsonrpc":"2.0","id":"a\"b"}`:      `"a\"b"`,
		` { "id" : 12 , "error" : {"code":1,"message":"m"} }`:                        `12`,
		`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{}}`:         ``,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":1}}`:      ``,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`:                                     ``,
		`{"jsonrpc":"2.0","id":{"x":1},"result":{}}`:                                 ``,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 300) + `","result":{}}`:      ``,
	} {
		var f frameID
		for i := range len(msg) { // in pieces of one byte: any split works
			f.feed([]byte{msg[i]})
		}
		id, ok := f.answerID()
		if string(id) != want || ok != (want != "") {
			t.Errorf("%s: id %s, %v", msg, id, ok)
		}
	}
}

// FuzzFrameID: for any message, an id found is the message's own id.
func FuzzFrameID(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":5,"result":{}}`)
	f.Add(`{"result":{"a":[1,"]"]},"id":"x"}`)
	f.Fuzz(func(t *testing.T, msg string) {
		var fr frameID
		fr.feed([]byte(msg))
		id, ok := fr.answerID()
		var m map[string]json.RawMessage
		if !ok || json.Unmarshal([]byte(msg), &m) != nil {
			return
		}
		if _, isReq := m["method"]; isReq {
			t.Fatalf("an id for a request: %s", msg)
		}
		var a, b any
		if json.Unmarshal(id, &a) != nil || json.Unmarshal(m["id"], &b) != nil || !jsonEqual(a, b) {
			t.Fatalf("%s: id %s, want %s", msg, id, m["id"])
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
