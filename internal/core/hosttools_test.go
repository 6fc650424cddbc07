package core_test

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A turn sent with host_tools_only keeps it when it is retried and when the
// session is forked at its message, so a client that offers only its own tools
// is never offered the built-in browser tools by a later turn.
func TestHostToolsOnlyCarriesOver(t *testing.T) {
	st := testsvc.SQLite(t)
	host := []protocol.HostTool{{Name: "add", Parameters: []byte(`{"type":"object"}`)}}
	var sent *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) error {
		var err error
		sent, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m1", Content: protocol.MessageContent{Text: "add 1 and 2"},
			Tools: host, HostToolsOnly: true})
		if err != nil {
			return err
		}
		_, _, err = lifecycle.StopTurn(tx, caller, sent.SessionID, nil)
		return err
	})
	turn := func(id string) *protocol.Turn {
		var tr *protocol.Turn
		if err := st.Read(ctx, func(tx store.Tx) error { var err error; tr, err = tx.TurnGet(id); return err }); err != nil {
			t.Fatal(err)
		}
		return tr
	}

	var retried *protocol.TurnStartResult
	write(t, st, func(tx store.Tx) error {
		var err error
		retried, err = core.RetryTurn(tx, caller, &protocol.TurnRetryRequest{ClientID: "r1", SessionID: sent.SessionID, TurnID: sent.TurnID})
		return err
	})
	if tr := turn(retried.TurnID); !tr.HostToolsOnly || len(tr.Tools) != 1 || tr.Tools[0].Name != "add" {
		t.Fatalf("retried turn: host_tools_only %v, tools %+v; want true and the host tool", tr.HostToolsOnly, tr.Tools)
	}

	forked, err := fork(st, sent.SessionID, sent.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if tr := turn(forked.TurnID); !tr.HostToolsOnly || len(tr.Tools) != 1 {
		t.Fatalf("forked turn: host_tools_only %v, tools %+v; want true and the host tool", tr.HostToolsOnly, tr.Tools)
	}
}
