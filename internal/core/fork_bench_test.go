package core_test

import (
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// BenchmarkFork forks a session of 300 finished turns (a user message and an
// answer each) from its last message: one read of the messages, so the cost
// grows with the messages copied, not with turns × messages.
func BenchmarkFork(b *testing.B) {
	st := testsvc.SQLite(b)
	const turns = 300
	var sess, last string
	for i := range turns {
		err := st.Write(ctx, func(tx store.Tx) error {
			res, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: fmt.Sprintf("m%d", i), SessionID: sess, Content: protocol.MessageContent{Text: "question"}})
			if err != nil {
				return err
			}
			sess, last = res.SessionID, res.MessageID
			if i == turns-1 {
				return nil
			}
			tr, err := tx.TurnGet(res.TurnID)
			if err != nil {
				return err
			}
			tr.Status = protocol.TurnCompleted
			if err := core.EmitTurn(tx, tr, protocol.TurnQueued); err != nil {
				return err
			}
			seq, err := tx.MessageMaxSeq(sess)
			if err != nil {
				return err
			}
			return core.EmitMessage(tx, &protocol.Message{ID: core.NewID(), SessionID: sess, TurnID: tr.ID, UserID: caller.UserID, Seq: seq + 1,
				Role: protocol.RoleAssistant, Text: "an answer of some length", Status: protocol.MessageComplete}, "", "")
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; b.Loop(); i++ {
		err := st.Write(ctx, func(tx store.Tx) error {
			_, err := core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: fmt.Sprintf("f%d", i), SessionID: sess, MessageID: last})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
