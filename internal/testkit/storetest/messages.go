package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// testMessagesStreaming: a turn's streaming messages are those after its user
// message (all of the session's, for a turn without one), of that turn, still
// streaming, in seq order, as written in the same transaction too.
func testMessagesStreaming(t *testing.T, s store.Store, _ *Clock) {
	msgs := []protocol.Message{
		{ID: "old", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Role: protocol.RoleAssistant, Status: protocol.MessageStreaming}, // before its user message
		{ID: "u2", SessionID: "s", TurnID: "t", UserID: "u", Seq: 2, Role: protocol.RoleUser, Status: protocol.MessageComplete},
		{ID: "a3", SessionID: "s", TurnID: "t", UserID: "u", Seq: 3, Role: protocol.RoleAssistant, Status: protocol.MessageComplete},
		{ID: "a4", SessionID: "s", TurnID: "t", UserID: "u", Seq: 4, Role: protocol.RoleAssistant, Status: protocol.MessageStreaming},
		{ID: "b5", SessionID: "s", TurnID: "t2", UserID: "u", Seq: 5, Role: protocol.RoleAssistant, Status: protocol.MessageStreaming},
		{ID: "a6", SessionID: "s", TurnID: "t", UserID: "u", Seq: 6, Role: protocol.RoleAssistant, Status: protocol.MessageStreaming},
		{ID: "x", SessionID: "s2", TurnID: "t", UserID: "u", Seq: 7, Role: protocol.RoleAssistant, Status: protocol.MessageStreaming},
	}
	ids := func(ms []protocol.Message) string {
		out := ""
		for _, m := range ms {
			out += m.ID + " "
		}
		return out
	}
	turn := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u", UserMessageID: "u2"}
	write(t, s, func(tx store.Tx) error {
		for i := range msgs {
			if err := tx.MessageInsert(&msgs[i], ""); err != nil {
				return err
			}
		}
		// The transaction's own change counts: a4 is no longer streaming.
		done := msgs[3]
		done.Status = protocol.MessageComplete
		if err := tx.MessageUpdate(&done, protocol.MessageStreaming); err != nil {
			return err
		}
		got, err := tx.MessagesStreaming(turn)
		if err != nil {
			return err
		}
		if ids(got) != "a6 " {
			return fmt.Errorf("in the writing transaction: %q, want a6", ids(got))
		}
		return nil
	})
	err := s.Read(ctx, func(tx store.Tx) error {
		got, err := tx.MessagesStreaming(turn)
		if err != nil {
			return err
		}
		if ids(got) != "a6 " {
			return fmt.Errorf("after its user message: %q, want a6", ids(got))
		}
		compact := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u"}
		if got, err = tx.MessagesStreaming(compact); err != nil || ids(got) != "old a6 " {
			return fmt.Errorf("a turn without a user message: %q, %v; want old a6", ids(got), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testMessageLastByRole: the latest complete message of a role, per session;
// streaming ones and other sessions' do not count.
func testMessageLastByRole(t *testing.T, s store.Store, _ *Clock) {
	msgs := []protocol.Message{
		{ID: "u1", SessionID: "s", UserID: "u", Seq: 1, Role: protocol.RoleUser, Status: protocol.MessageComplete},
		{ID: "sum1", SessionID: "s", UserID: "u", Seq: 2, Role: protocol.RoleSummary, Status: protocol.MessageComplete, SummaryOfSeq: 1},
		{ID: "sum2", SessionID: "s", UserID: "u", Seq: 3, Role: protocol.RoleSummary, Status: protocol.MessageComplete, SummaryOfSeq: 2},
		{ID: "a1", SessionID: "s", UserID: "u", Seq: 4, Role: protocol.RoleAssistant, Status: protocol.MessageComplete},
		{ID: "sum3", SessionID: "s", UserID: "u", Seq: 5, Role: protocol.RoleSummary, Status: protocol.MessageStreaming},
		{ID: "other", SessionID: "s2", UserID: "u", Seq: 9, Role: protocol.RoleSummary, Status: protocol.MessageComplete},
	}
	write(t, s, func(tx store.Tx) error {
		for i := range msgs {
			if err := tx.MessageInsert(&msgs[i], ""); err != nil {
				return err
			}
		}
		return nil
	})
	err := s.Read(ctx, func(tx store.Tx) error {
		got, err := tx.MessageLastByRole("s", protocol.RoleSummary)
		if err != nil {
			return err
		}
		if got.ID != "sum2" || got.SummaryOfSeq != 2 {
			return fmt.Errorf("latest summary %s (of %d), want sum2", got.ID, got.SummaryOfSeq)
		}
		if _, err := tx.MessageLastByRole("s3", protocol.RoleSummary); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("session without summary: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
