package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

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
