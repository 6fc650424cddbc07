package storetest

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// testConcurrentSessionChanges: writers each change one field of the same session
// at once, every change a read-modify-write (SessionGet, then SessionUpdate, with
// the offset and update the way the server emits them). Every change survives:
// none is undone by a writer that read the session before it committed.
func testConcurrentSessionChanges(t *testing.T, s store.Store, _ *Clock) {
	const rounds = 25
	write(t, s, func(tx store.Tx) error {
		return tx.SessionInsert(&protocol.Session{ID: "s", UserID: "u", Title: "0", WorkMode: protocol.ModeEdit, Status: protocol.SessionOpen})
	})
	change := func(fn func(*protocol.Session)) error {
		return s.Write(ctx, func(tx store.Tx) error {
			sess, err := tx.SessionGet("s")
			if err != nil {
				return err
			}
			fn(sess)
			if sess.Offset, err = tx.NextOffset(sess.UserID); err != nil {
				return err
			}
			if err := tx.SessionUpdate(sess); err != nil {
				return err
			}
			_, err = tx.UpdateAppend(sess.UserID, protocol.UpdSessionUpdated, sess)
			return err
		})
	}
	modes := []string{protocol.ModePlan, protocol.ModeManual, protocol.ModeBypass, protocol.ModeEdit}
	writers := map[string]func(round int) error{
		"title": func(int) error { // a counter: each rename reads the last
			return change(func(sess *protocol.Session) {
				n, _ := strconv.Atoi(sess.Title)
				sess.Title = strconv.Itoa(n + 1)
			})
		},
		"work mode": func(i int) error {
			return change(func(sess *protocol.Session) { sess.WorkMode = modes[i%len(modes)] })
		},
		"close and reopen": func(int) error {
			if err := change(func(sess *protocol.Session) { sess.Status = protocol.SessionClosed }); err != nil {
				return err
			}
			return change(func(sess *protocol.Session) { sess.Status = protocol.SessionOpen })
		},
		"turn start and end": func(i int) error {
			turn := fmt.Sprintf("t%d", i)
			if err := change(func(sess *protocol.Session) { sess.ActiveTurnID = turn }); err != nil {
				return err
			}
			return change(func(sess *protocol.Session) {
				if sess.ActiveTurnID == turn {
					sess.ActiveTurnID = ""
				}
				sess.Usage.InputTokens++ // the ended turn's usage, added to the last
			})
		},
	}
	var wg sync.WaitGroup
	for name, w := range writers {
		wg.Go(func() {
			for i := range rounds {
				if err := w(i); err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	var got *protocol.Session
	err := s.Read(ctx, func(tx store.Tx) error { var err error; got, err = tx.SessionGet("s"); return err })
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.Session{Title: strconv.Itoa(rounds), WorkMode: modes[(rounds-1)%len(modes)], Status: protocol.SessionOpen,
		Usage: protocol.Usage{InputTokens: rounds}}
	if got.Title != want.Title || got.WorkMode != want.WorkMode || got.Status != want.Status || got.ActiveTurnID != "" ||
		got.Usage.InputTokens != want.Usage.InputTokens {
		t.Fatalf("after concurrent changes: title %q, work mode %s, status %s, active turn %q, input tokens %d; want title %q, work mode %s, status %s, no active turn, input tokens %d",
			got.Title, got.WorkMode, got.Status, got.ActiveTurnID, got.Usage.InputTokens,
			want.Title, want.WorkMode, want.Status, want.Usage.InputTokens)
	}
}
