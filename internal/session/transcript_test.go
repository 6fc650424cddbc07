package session

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// The part of a compacted session that loadTranscript reads builds the same model
// request as the whole history, also when messages of later turns were sent while
// an earlier turn ran (their seq is below the summary's cut) and for a retry whose
// user message belongs to the turn it retries.
func TestLoadTranscriptFromSummaryBuildsTheSameRequest(t *testing.T) {
	st := testsvc.SQLite(t)
	seq := int64(0)
	msg := func(tx store.Tx, turn, role, text string, calls int) (*protocol.Message, error) {
		seq++
		m := &protocol.Message{ID: fmt.Sprint("m", seq), SessionID: "s", TurnID: turn, UserID: "u", Seq: seq, Role: role, Text: text, Status: protocol.MessageComplete}
		for i := range calls {
			m.ToolCalls = append(m.ToolCalls, protocol.ToolCall{ID: fmt.Sprint("c", seq, "_", i), Name: "read", Arguments: json.RawMessage(`{}`)})
		}
		if err := tx.MessageInsert(m, ""); err != nil {
			return nil, err
		}
		for _, c := range m.ToolCalls {
			r := &protocol.RTC{ID: "r" + c.ID, SessionID: "s", TurnID: turn, UserID: "u", MessageID: m.ID, ToolCallID: c.ID, Status: protocol.RTCCompleted, Output: json.RawMessage(`"out ` + c.ID + `"`)}
			if err := tx.RTCInsert(r); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	err := st.Write(context.Background(), func(tx store.Tx) error {
		turns := []protocol.Turn{
			{ID: "t1", SessionID: "s", UserID: "u", Seq: 1, UserMessageID: "m1", Status: protocol.TurnCompleted},
			{ID: "t2", SessionID: "s", UserID: "u", Seq: 2, UserMessageID: "m3", Status: protocol.TurnFailed},
			{ID: "t3", SessionID: "s", UserID: "u", Seq: 3, UserMessageID: "m3", RetryOf: "t2", Status: protocol.TurnRunning},
			{ID: "t4", SessionID: "s", UserID: "u", Seq: 4, UserMessageID: "m5", Status: protocol.TurnQueued},
		}
		for i := range turns {
			if err := tx.TurnInsert(&turns[i]); err != nil {
				return err
			}
		}
		steps := []struct {
			turn, role, text string
			calls            int
		}{
			{"t1", protocol.RoleUser, "first", 0},  // m1
			{"t1", protocol.RoleAssistant, "", 1},  // m2
			{"t2", protocol.RoleUser, "second", 0}, // m3 (sent while t1 ran)
			{"t1", protocol.RoleAssistant, "", 2},  // m4
			{"t4", protocol.RoleUser, "fourth", 0}, // m5 (queued early)
			{"t1", protocol.RoleAssistant, "answer one", 0},
			{"t2", protocol.RoleAssistant, "", 1},
			{"t2", protocol.RoleAssistant, "provider down", 0},
			{"t3", protocol.RoleAssistant, "", 1},
			{"t3", protocol.RoleAssistant, "", 1},
		}
		for _, s := range steps {
			m, err := msg(tx, s.turn, s.role, s.text, s.calls)
			if err != nil {
				return err
			}
			if s.text == "provider down" {
				m.Status = protocol.MessageError
				if err := tx.MessageUpdate(m, protocol.MessageComplete); err != nil {
					return err
				}
			}
		}
		// A summary made in t3 covering up to t2's tool step (m7), then one more step.
		seq++
		sum := &protocol.Message{ID: "sum", SessionID: "s", TurnID: "t3", UserID: "u", Seq: seq, Role: protocol.RoleSummary, Text: "S", SummaryOfSeq: 7, Status: protocol.MessageComplete}
		if err := tx.MessageInsert(sum, ""); err != nil {
			return err
		}
		_, err := msg(tx, "t3", protocol.RoleAssistant, "", 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var part, whole agent.Transcript
	err = st.Read(context.Background(), func(tx store.Tx) error {
		if err := loadTranscript(tx, "s", &part); err != nil {
			return err
		}
		return loadWholeTranscript(tx, "s", &whole)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Messages) >= len(whole.Messages) {
		t.Fatalf("loaded %d of %d messages: nothing saved", len(part.Messages), len(whole.Messages))
	}
	for _, upTo := range []int64{3, 4} {
		got, want := agent.BuildMessages(part, upTo, 1000), agent.BuildMessages(whole, upTo, 1000)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("turn %d: from the summary\n%+v\nwhole\n%+v", upTo, got, want)
		}
		if want[0].Text != agent.SummaryBlock("S").Text {
			t.Fatalf("turn %d: the request does not start from the summary: %+v", upTo, want[0])
		}
		if upTo == 4 && want[len(want)-1].Text != "fourth" {
			t.Fatalf("the queued message is lost: %+v", want)
		}
	}
}
