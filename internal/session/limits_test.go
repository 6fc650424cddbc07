package session

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// keptBound is the most any one stored value, Topic update or model request
// built from a cut call may take: the default "kept" limit of a tool call.
var keptBound = protocol.Limits{}.WithDefaults().ToolArgsBytes

// oversized is what a turn whose model sent one oversized call left behind.
type oversized struct {
	msg     protocol.Message // the assistant message with the call
	rtc     protocol.RTC
	updates []protocol.Update
	final   protocol.Message // the turn's last message
	reqs    []llm.Request    // what the model was sent
}

// runOversized runs one turn of a model whose first step calls tool with args
// and whose second answers with the call's result, on a fresh store from open,
// and returns what it stored and sent. When wait is false the call is expected
// to wait for the browser and the turn is not waited for.
func runOversized(t *testing.T, open func(*testing.T) store.Store, tool string, args json.RawMessage, wait bool) oversized {
	t.Helper()
	raw := string(args) // emitted as it is: compacting 50 MB is slow under the race detector
	model, err := scripted.New(scripted.Script{Name: "big", Turns: []scripted.Turn{{Steps: []scripted.Step{
		{ToolCalls: []scripted.ToolCall{{Name: tool, RawArguments: &raw}}},
		{Text: "after: {{last_result}}"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	st := open(t)
	ctx := t.Context()
	res := send(ctx, t, st, &protocol.MessageSendRequest{ClientID: "c1", WorkMode: protocol.ModeBypass, Content: protocol.MessageContent{Text: "go"}})
	startRunner(t, Config{Store: st, Model: model, PollInterval: 10 * time.Millisecond})
	var out oversized
	if wait {
		waitCompleted(ctx, t, st, res.TurnID)
	} else {
		waitFor(t, "the call to be delivered", func() bool {
			var rtcs []protocol.RTC
			err := st.Read(ctx, func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err })
			return err == nil && len(rtcs) == 1 && rtcs[0].Status == protocol.RTCPending
		})
	}
	if err := st.Read(ctx, func(tx store.Tx) error {
		msgs, err := tx.MessageList(res.SessionID, store.Page{Limit: 100})
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if len(m.ToolCalls) > 0 {
				out.msg = m
			}
		}
		out.final = msgs[len(msgs)-1]
		rtcs, err := tx.RTCListByTurn(res.TurnID)
		if err != nil || len(rtcs) != 1 {
			t.Fatalf("%d RTCs: %v", len(rtcs), err)
		}
		out.rtc = rtcs[0]
		out.updates, _, err = tx.UpdateList("u", 0, 1000, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	out.reqs = model.Requests()
	return out
}

// checkBounded asserts that nothing stored, published or sent to the model
// again holds the oversized value whole.
func checkBounded(t *testing.T, o oversized) {
	t.Helper()
	if len(o.msg.ToolCalls) != 1 {
		t.Fatalf("the message has %d tool calls", len(o.msg.ToolCalls))
	}
	if n := len(o.msg.ToolCalls[0].Arguments); n >= keptBound {
		t.Errorf("the message keeps %d bytes of arguments", n)
	}
	if n := len(o.rtc.Arguments); n >= keptBound {
		t.Errorf("the RTC keeps %d bytes of arguments", n)
	}
	largest, total := 0, 0
	for _, u := range o.updates {
		data, _ := json.Marshal(u)
		largest, total = max(largest, len(data)), total+len(data)
		if len(data) >= keptBound {
			t.Errorf("Topic update %d is %d bytes", u.Offset, len(data))
		}
	}
	sent := 0
	for i, req := range o.reqs {
		data, _ := json.Marshal(req.Messages)
		sent += len(data)
		if len(data) >= keptBound {
			t.Errorf("model request %d carries %d bytes of messages", i+1, len(data))
		}
	}
	t.Logf("kept: message arguments %d bytes, RTC arguments %d, Topic updates %d in all (largest %d), model requests %d",
		len(o.msg.ToolCalls[0].Arguments), len(o.rtc.Arguments), total, largest, sent)
}

// bigWrite is a model's write of n bytes of content.
func bigWrite(n int) json.RawMessage {
	return json.RawMessage(`{"path":"/big.txt","content":"` + strings.Repeat("x", n) + `"}`)
}

// A model's write of 50 MB is refused, and its arguments are cut where they
// enter: the message, the RTC, every Topic update and the model's next request
// hold a prefix and a note, the model reads why the call was refused, and the
// turn goes on.
func TestOversizedCallIsCutWhereItEnters(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) store.Store) {
		const size = 50 << 20
		o := runOversized(t, open, "write", bigWrite(size), true)
		checkBounded(t, o)
		if o.rtc.Status != protocol.RTCFailed || !strings.Contains(o.rtc.Error, "too large") || strings.Contains(o.rtc.Error, "xxxx") {
			t.Errorf("the RTC ended %s: %.300q", o.rtc.Status, o.rtc.Error)
		}
		var kept string
		if err := json.Unmarshal(o.msg.ToolCalls[0].Arguments, &kept); err != nil || !strings.HasPrefix(kept, `{"path":"/big.txt","content":"xxx`) || !strings.Contains(kept, "bytes more]") {
			t.Errorf("kept arguments: %.200q (%v)", kept, err)
		}
		if len(o.reqs) != 2 {
			t.Fatalf("the model was called %d times", len(o.reqs))
		}
		next := o.reqs[1].Messages
		var call *llm.ToolCall
		var result string
		for _, m := range next {
			if len(m.ToolCalls) > 0 {
				call = &m.ToolCalls[0]
			}
			if m.Role == llm.RoleTool {
				result = m.Text
			}
		}
		if call == nil || string(call.Arguments) != string(o.msg.ToolCalls[0].Arguments) {
			t.Errorf("the next request's call: %+v", call)
		}
		if !strings.Contains(result, "too large") || strings.Contains(result, "xxxx") {
			t.Errorf("the model read %.300q", result)
		}
		if !strings.HasPrefix(o.final.Text, "after: [Tool Error]") {
			t.Errorf("the turn ended with %.200q", o.final.Text)
		}
	})
}

// A 1 MB askUser question is refused and cut like any oversized call; one
// within the call limit but over the askUser bound reaches the browser with its
// question cut.
func TestOversizedAskUserIsCut(t *testing.T) {
	ask := func(n int) json.RawMessage {
		return json.RawMessage(`{"questions":[{"question":"` + strings.Repeat("q", n) + `","options":[{"label":"yes"},{"label":"no"}]}]}`)
	}
	eachStore(t, func(t *testing.T, open func(*testing.T) store.Store) {
		t.Run("over the call limit", func(t *testing.T) {
			o := runOversized(t, open, "askUser", ask(1<<20), true)
			checkBounded(t, o)
			if o.rtc.Status != protocol.RTCFailed || !strings.Contains(o.rtc.Error, "too large") {
				t.Errorf("the RTC ended %s: %.300q", o.rtc.Status, o.rtc.Error)
			}
		})
		t.Run("over the askUser bound", func(t *testing.T) {
			o := runOversized(t, open, "askUser", ask(100<<10), false)
			checkBounded(t, o)
			var args struct {
				Questions []struct {
					Question string `json:"question"`
					Options  []struct {
						Label string `json:"label"`
					} `json:"options"`
				} `json:"questions"`
			}
			if err := json.Unmarshal(o.rtc.Arguments, &args); err != nil || len(args.Questions) != 1 || len(args.Questions[0].Options) != 2 {
				t.Fatalf("delivered arguments %.300s: %v", o.rtc.Arguments, err)
			}
			if q := args.Questions[0].Question; len(q) > 4<<10 || !strings.HasPrefix(q, "qqq") || !strings.Contains(q, "bytes more]") {
				t.Errorf("the question reached the browser as %d bytes: %.100q…", len(q), q)
			}
			if n := len(o.rtc.Arguments); n > 2*(protocol.Limits{}).WithDefaults().AskUserBytes {
				t.Errorf("the askUser RTC keeps %d bytes", n)
			}
		})
	})
}

// A model step that streams more text than the limit keeps a prefix and a note.
func TestOversizedTextIsCut(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) store.Store) {
		model, err := scripted.New(scripted.Script{Name: "long", Turns: []scripted.Turn{{Steps: []scripted.Step{
			{Chunks: []string{strings.Repeat("a", 200<<10), strings.Repeat("b", 200<<10), strings.Repeat("c", 1<<20)}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		st := open(t)
		ctx := t.Context()
		res := send(ctx, t, st, &protocol.MessageSendRequest{ClientID: "c1", Content: protocol.MessageContent{Text: "go"}})
		startRunner(t, Config{Store: st, Model: model, PollInterval: 10 * time.Millisecond})
		waitCompleted(ctx, t, st, res.TurnID)
		var msgs []protocol.Message
		var ups []protocol.Update
		if err := st.Read(ctx, func(tx store.Tx) error {
			var err error
			if msgs, err = tx.MessageList(res.SessionID, store.Page{Limit: 100}); err != nil {
				return err
			}
			ups, _, err = tx.UpdateList("u", 0, 1000, 0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		text := msgs[len(msgs)-1].Text
		lim := protocol.Limits{}.WithDefaults().ModelTextBytes
		const produced = 400<<10 + 1<<20
		kept := strings.Index(text, "… [cut:")
		if len(text) > lim || kept < lim/2 || !strings.HasPrefix(text, "aaa") || !strings.HasSuffix(text, protocol.CutNote(produced-kept)) {
			t.Errorf("the message text is %d bytes, ending %q", len(text), text[max(0, len(text)-80):])
		}
		for _, u := range ups {
			if data, _ := json.Marshal(u); len(data) > lim+4<<10 {
				t.Errorf("Topic update %d is %d bytes", u.Offset, len(data))
			}
		}
	})
}

// eachStore runs f on SQLite and on PostgreSQL.
func eachStore(t *testing.T, f func(t *testing.T, open func(*testing.T) store.Store)) {
	t.Run("sqlite", func(t *testing.T) { f(t, func(t *testing.T) store.Store { return testsvc.SQLite(t) }) })
	t.Run("postgres", func(t *testing.T) { f(t, func(t *testing.T) store.Store { return openPGStore(t) }) })
}
