package api

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Closing or deleting a chat ends every turn it still has: the active one and
// the ones queued behind it. None starts afterwards (the bug: only the active
// turn stopped, and its end queued the next turn's start).
func TestCloseEndsQueuedTurns(t *testing.T) {
	for _, method := range []string{protocol.MethodSessionClose, protocol.MethodSessionDelete} {
		for _, active := range []bool{false, true} {
			t.Run(method+map[bool]string{false: "/all queued", true: "/one active"}[active], func(t *testing.T) {
				a, st := newTestAPI(t)
				c := core.Caller{UserID: "alice", DeviceID: "d"}
				var sid string
				for i, text := range []string{"first", "second", "third"} {
					req := protocol.MessageSendRequest{ClientID: text, SessionID: sid, Content: protocol.MessageContent{Text: text}}
					raw, _ := json.Marshal(req)
					res, perr := a.Call(context.Background(), c, protocol.MethodMessageSend, raw)
					if perr != nil {
						t.Fatalf("send %d: %v", i, perr)
					}
					var out protocol.MessageSendResult
					if err := json.Unmarshal(res, &out); err != nil {
						t.Fatal(err)
					}
					sid = out.SessionID
				}
				if active {
					startFirst(t, st, sid)
				}
				raw, _ := json.Marshal(protocol.IDRequest{SessionID: sid})
				if _, perr := a.Call(context.Background(), c, method, raw); perr != nil {
					t.Fatal(perr)
				}
				err := st.Read(context.Background(), func(tx store.Tx) error {
					turns, err := tx.TurnList(sid, store.Page{Limit: 10})
					if err != nil {
						return err
					}
					for _, tr := range turns {
						if tr.Status != protocol.TurnStopped {
							t.Errorf("turn %d is %s after %s, want stopped", tr.Seq, tr.Status, method)
						}
					}
					if _, err := tx.TurnNextQueued(sid); !errors.Is(err, store.ErrNotFound) {
						t.Errorf("a queued turn is left: %v", err)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// startFirst makes the session's first turn its running turn, as a worker does.
func startFirst(t *testing.T, st store.Store, sid string) {
	t.Helper()
	err := st.Write(context.Background(), func(tx store.Tx) error {
		s, err := tx.SessionGet(sid)
		if err != nil {
			return err
		}
		tr, err := tx.TurnNextQueued(sid)
		if err != nil {
			return err
		}
		tr.Status = protocol.TurnRunning
		if err := core.EmitTurn(tx, tr, protocol.TurnQueued); err != nil {
			return err
		}
		s.ActiveTurnID = tr.ID
		return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
	})
	if err != nil {
		t.Fatal(err)
	}
}
