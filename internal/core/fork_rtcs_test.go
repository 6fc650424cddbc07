package core_test

import (
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// rtcReads counts the reads of tool calls a transaction makes.
type rtcReads struct {
	store.Tx
	n int
}

func (r *rtcReads) RTCListByTurn(turnID string) ([]protocol.RTC, error) {
	r.n++
	return r.Tx.RTCListByTurn(turnID)
}

func (r *rtcReads) RTCListBySession(sessionID, afterID string, limit int) ([]protocol.RTC, error) {
	r.n++
	return r.Tx.RTCListBySession(sessionID, afterID, limit)
}

// A fork reads the source's tool calls in one query however many turns it
// copies, and copies each turn's calls in seq order with their outcomes.
func TestForkReadsToolCallsOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(*testing.T) store.Store
	}{{"sqlite", func(t *testing.T) store.Store { return testsvc.SQLite(t) }}, {"postgres", pgStore}} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.open(t)
			const turns, calls = 5, 3
			var sess, last string
			for i := range turns + 1 {
				write(t, st, func(tx store.Tx) error {
					res, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: fmt.Sprintf("m%d", i), SessionID: sess, Content: protocol.MessageContent{Text: "q"}})
					if err != nil {
						return err
					}
					sess, last = res.SessionID, res.MessageID
					if i == turns {
						return nil
					}
					tr, err := tx.TurnGet(res.TurnID)
					if err != nil {
						return err
					}
					seq, err := tx.MessageMaxSeq(sess)
					if err != nil {
						return err
					}
					answer := &protocol.Message{ID: core.NewID(), SessionID: sess, TurnID: tr.ID, UserID: caller.UserID, Seq: seq + 1,
						Role: protocol.RoleAssistant, Status: protocol.MessageComplete}
					if err := core.EmitMessage(tx, answer, "", ""); err != nil {
						return err
					}
					// Inserted in reverse seq order: the copy follows seq, not insertion.
					for c := calls; c >= 1; c-- {
						r := &protocol.RTC{ID: core.NewID(), SessionID: sess, TurnID: tr.ID, UserID: caller.UserID, MessageID: answer.ID,
							ToolCallID: fmt.Sprintf("call_%d_%d", i, c), Seq: c, Step: 1, ToolName: "ls", Status: protocol.RTCCompleted,
							Output: []byte(fmt.Sprintf(`"out %d %d"`, i, c))}
						if err := tx.RTCInsert(r); err != nil {
							return err
						}
					}
					tr.Status = protocol.TurnCompleted
					return core.EmitTurn(tx, tr, protocol.TurnQueued)
				})
			}
			before := pgstore.ReadCounts()
			var reads *rtcReads
			var res *protocol.MessageSendResult
			write(t, st, func(tx store.Tx) error {
				reads = &rtcReads{Tx: tx}
				var err error
				res, err = core.ForkSession(reads, caller, &protocol.SessionForkRequest{ClientID: "f", SessionID: sess, MessageID: last})
				return err
			})
			if tc.name == "postgres" {
				t.Logf("fork of %d turns with %d calls each: %d statements", turns, calls, pgstore.ReadCounts().Sub(before).Statements)
			}
			if reads.n != 1 {
				t.Errorf("fork of %d turns read tool calls %d times, want once", turns, reads.n)
			}
			var got []protocol.RTC
			if err := st.Read(ctx, func(tx store.Tx) error {
				var err error
				got, err = tx.RTCListBySession(res.SessionID, "", 1000)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != turns*calls {
				t.Fatalf("fork has %d tool calls, want %d", len(got), turns*calls)
			}
			for k, r := range got {
				i, c := k/calls, k%calls+1
				if r.ToolCallID != fmt.Sprintf("call_%d_%d", i, c) || r.Seq != c || string(r.Output) != fmt.Sprintf(`"out %d %d"`, i, c) ||
					r.SessionID != res.SessionID || r.Status != protocol.RTCCompleted {
					t.Fatalf("copied call %d: %+v", k, r)
				}
			}
		})
	}
}
