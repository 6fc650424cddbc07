package storetest

import (
	"fmt"
	"slices"
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
		"allow for this chat": func(i int) error { // each round grants a tool; every third revokes the one before
			return change(func(sess *protocol.Session) {
				if i%3 == 2 {
					sess.Approvals = slices.DeleteFunc(sess.Approvals, func(a protocol.ToolApproval) bool { return a.Tool == fmt.Sprintf("tool%d", i-1) })
				}
				sess.Approvals = append(sess.Approvals, protocol.ToolApproval{Tool: fmt.Sprintf("tool%d", i), DeviceID: "d", RTCID: fmt.Sprintf("r%d", i)})
			})
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
	var wantTools []string
	for i := range rounds {
		if i%3 != 1 || i+1 >= rounds {
			wantTools = append(wantTools, fmt.Sprintf("tool%d", i))
		}
	}
	var gotTools []string
	for _, a := range got.Approvals {
		gotTools = append(gotTools, a.Tool)
	}
	if !slices.Equal(gotTools, wantTools) {
		t.Fatalf("approvals after concurrent changes: %v, want %v", gotTools, wantTools)
	}
	if got.Title != want.Title || got.WorkMode != want.WorkMode || got.Status != want.Status || got.ActiveTurnID != "" ||
		got.Usage.InputTokens != want.Usage.InputTokens {
		t.Fatalf("after concurrent changes: title %q, work mode %s, status %s, active turn %q, input tokens %d; want title %q, work mode %s, status %s, no active turn, input tokens %d",
			got.Title, got.WorkMode, got.Status, got.ActiveTurnID, got.Usage.InputTokens,
			want.Title, want.WorkMode, want.Status, want.Usage.InputTokens)
	}
}

// testApprovalsAndDecisions: a session's "Allow for this chat" list and an RTC's
// decision (who, when, scope, reason) are stored whole and read back as written,
// through an insert and a compare-and-set update.
func testApprovalsAndDecisions(t *testing.T, s store.Store, clock *Clock) {
	at := clock.Now().UTC()
	sess := &protocol.Session{ID: "s", UserID: "u", DeviceID: "d", WorkMode: protocol.ModeManual, Status: protocol.SessionOpen,
		Approvals: []protocol.ToolApproval{{Tool: "write", DeviceID: "d", RTCID: "r0", GrantedAt: at}}}
	r := &protocol.RTC{ID: "r1", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Step: 1, ToolName: "write", Arguments: []byte(`{}`),
		Status: protocol.RTCPending, NeedsConfirmation: true}
	write(t, s, func(tx store.Tx) error {
		if err := tx.SessionInsert(sess); err != nil {
			return err
		}
		return tx.RTCInsert(r)
	})
	deny := &protocol.Decision{Decision: protocol.DecisionDeny, Scope: protocol.ScopeOnce, Reason: "not there", DeviceID: "d", At: at}
	write(t, s, func(tx store.Tx) error {
		got, err := tx.SessionGet("s")
		if err != nil {
			return err
		}
		got.Approvals = append(got.Approvals, protocol.ToolApproval{Tool: "addToCart", DeviceID: "d2", RTCID: "r9", GrantedAt: at})
		if err := tx.SessionUpdate(got); err != nil {
			return err
		}
		rr, err := tx.RTCGet("r1")
		if err != nil {
			return err
		}
		rr.Status, rr.Error, rr.Decision = protocol.RTCRejected, "declined", deny
		return tx.RTCUpdate(rr, protocol.RTCPending)
	})
	_ = s.Read(ctx, func(tx store.Tx) error {
		got := must(tx.SessionGet("s"))(t)
		if len(got.Approvals) != 2 || got.Approvals[0].Tool != "write" || got.Approvals[0].RTCID != "r0" || !got.Approvals[0].GrantedAt.Equal(at) ||
			got.Approvals[1].Tool != "addToCart" || got.Approvals[1].DeviceID != "d2" {
			t.Fatalf("approvals read back: %+v", got.Approvals)
		}
		rr := must(tx.RTCGet("r1"))(t)
		if rr.Decision == nil || rr.Decision.Decision != deny.Decision || rr.Decision.Scope != deny.Scope || rr.Decision.Reason != deny.Reason ||
			rr.Decision.DeviceID != deny.DeviceID || !rr.Decision.At.Equal(at) {
			t.Fatalf("decision read back: %+v", rr.Decision)
		}
		return nil
	})
}
