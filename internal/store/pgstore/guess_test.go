package pgstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// A call's end that adopts its turn, as a result does: the call's change, the
// resumption queued, the session's lease taken and the item taken.
func endAndAdopt(tx store.Tx, holder string) (store.Lease, *store.InboxItem, error) {
	tx.Prefetch(store.Prefetch{TurnOfRTC: "r"})
	r, err := tx.RTCGet("r")
	if err != nil {
		return store.Lease{}, nil, err
	}
	prev := r.Status
	r.Status = protocol.RTCCompleted
	if err := tx.RTCUpdate(r, prev); err != nil {
		return store.Lease{}, nil, err
	}
	if err := tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "turn.resume", TurnID: "t"}); err != nil {
		return store.Lease{}, nil, err
	}
	l, err := tx.LeaseAcquire("s", holder, 10*time.Second)
	if err != nil {
		return l, nil, err
	}
	it, err := tx.InboxNext("s")
	return l, it, err
}

// waitingTurn opens a store on a new schema holding session s of user u, its
// turn t waiting for the call r; it returns the turn and the call as stored.
func waitingTurn(t *testing.T) (*pgstore.Store, protocol.Turn, protocol.RTC) {
	t.Helper()
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	sess := &protocol.Session{ID: "s", UserID: "u", Status: protocol.SessionOpen}
	tr := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnWaiting, Step: 1}
	rc := &protocol.RTC{ID: "r", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Status: protocol.RTCPending}
	if err := s.Write(ctx, func(tx store.Tx) error {
		_, err := tx.UpdateAppend("u", protocol.UpdSessionCreated, sess)
		return errors.Join(err, tx.SessionInsert(sess), tx.TurnInsert(tr), tx.RTCInsert(rc))
	}); err != nil {
		t.Fatal(err)
	}
	return s, *tr, *rc
}

// endFixture: waitingTurn, the session's lease given back by its last holder.
func endFixture(t *testing.T) (*pgstore.Store, store.Lease) {
	t.Helper()
	s, _, _ := waitingTurn(t)
	old := acquire(t, s, "s", "A")
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.LeaseRelease(old) }); err != nil {
		t.Fatal(err)
	}
	return s, old
}

// Guessed from the prefetch, the lease and the item cost no exchange of their
// own: the transaction is its reads, then its writes with COMMIT. What the
// guesses said holds once committed.
func TestAdoptionGuessed(t *testing.T) {
	s, old := endFixture(t)
	var l store.Lease
	var it *store.InboxItem
	before := pgstore.ReadCounts()
	err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		l, it, err = endAndAdopt(tx, "B")
		return err
	})
	got := pgstore.ReadCounts().Sub(before)
	if err != nil {
		t.Fatal(err)
	}
	if got.Exchanges != 2 || got.Writes != 1 {
		t.Errorf("%d exchanges in %d transactions, want 2 in 1", got.Exchanges, got.Writes)
	}
	if l.Holder != "B" || l.Token != old.Token+1 {
		t.Errorf("lease %+v after token %d", l, old.Token)
	}
	var id, token int64
	var holder string
	if err := pgstore.Pool(s).QueryRow(ctx, `SELECT (SELECT id FROM inbox WHERE session_id = 's'), holder, token FROM leases WHERE session_id = 's'`).Scan(&id, &holder, &token); err != nil {
		t.Fatal(err)
	}
	if it == nil || it.ID != id || holder != "B" || token != l.Token {
		t.Errorf("stored: item %d, lease %s %d; the transaction said item %+v, lease %+v", id, holder, token, it, l)
	}
}

// A guess that no longer holds at commit (another node took the lease, or
// queued work, after the prefetch read them) fails the transaction, which runs
// again without guessing and finds what is there.
func TestAdoptionGuessWrong(t *testing.T) {
	for _, c := range []struct {
		name, meanwhile string
		conflict        bool
	}{
		{"lease taken", `UPDATE leases SET holder = 'C', token = token + 1, expires_at = now() + interval '1 hour' WHERE session_id = 's'`, true},
		{"work queued", `INSERT INTO inbox (session_id, kind, turn_id, created_at) VALUES ('s', 'turn.start', 't2', now())`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := endFixture(t)
			runs := 0
			var l store.Lease
			var it *store.InboxItem
			err := s.Write(ctx, func(tx store.Tx) error {
				runs++
				var err error
				l, it, err = endAndAdopt(tx, "B")
				if runs == 1 {
					if _, err := pgstore.Pool(s).Exec(ctx, c.meanwhile); err != nil {
						t.Fatal(err)
					}
				}
				if errors.Is(err, store.ErrConflict) && c.conflict {
					return nil // held: its holder drains the work
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if runs != 2 {
				t.Fatalf("ran %d times, want a second run without guessing", runs)
			}
			var items int
			_ = pgstore.Pool(s).QueryRow(ctx, `SELECT count(*) FROM inbox WHERE session_id = 's'`).Scan(&items)
			if c.conflict {
				var holder string
				_ = pgstore.Pool(s).QueryRow(ctx, `SELECT holder FROM leases WHERE session_id = 's'`).Scan(&holder)
				if holder != "C" || items != 1 {
					t.Fatalf("lease %s with %d items: the other node's lease was taken", holder, items)
				}
				return
			}
			if l.Holder != "B" || it == nil || it.TurnID != "t2" || items != 2 {
				t.Fatalf("lease %+v, next item %+v of %d: want the queued work first", l, it, items)
			}
		})
	}
}

// A holder the prefetch saw holding the lease, which gave it back before the
// commit (its drain found nothing left, without the user's stream), takes it
// again with a new token, as LeaseAcquire gives: the guess of its old token
// fails and the transaction runs again.
func TestAdoptionGuessOfTheHoldersOwnLease(t *testing.T) {
	s, _ := endFixture(t)
	held := acquire(t, s, "s", "B")
	runs := 0
	var l store.Lease
	err := s.Write(ctx, func(tx store.Tx) error {
		runs++
		var err error
		l, _, err = endAndAdopt(tx, "B")
		if runs == 1 {
			if _, err := pgstore.Pool(s).Exec(ctx, `UPDATE leases SET expires_at = 'epoch' WHERE session_id = 's'`); err != nil {
				t.Fatal(err)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var token int64
	_ = pgstore.Pool(s).QueryRow(ctx, `SELECT token FROM leases WHERE session_id = 's'`).Scan(&token)
	if runs != 2 || l.Token != held.Token+1 || token != held.Token+1 {
		t.Fatalf("%d runs: token %d, stored %d, after %d given back: want a new token", runs, l.Token, token, held.Token)
	}
}

// A message sent to a session, as core.SendMessage does it: the session's
// lock with the key, seqs, lease and inbox read with it; the message under
// its key; its turn's start queued and adopted.
// meanwhile runs once the session's lock and reads have been sent.
func sendAndAdopt(tx store.Tx, clientID string, meanwhile func()) (*protocol.Message, store.Lease, error) {
	tx.Prefetch(store.Prefetch{TurnSeq: "s", MessageSeq: "s", ClientUser: "u", ClientID: clientID, Adopt: "s"})
	if _, err := tx.SessionGet("s"); err != nil {
		return nil, store.Lease{}, err
	}
	meanwhile()
	if prev, err := tx.MessageByClientID("u", clientID); err == nil {
		return prev, store.Lease{}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, store.Lease{}, err
	}
	seq, err := tx.MessageMaxSeq("s")
	if err != nil {
		return nil, store.Lease{}, err
	}
	m := &protocol.Message{ID: "m-" + clientID, SessionID: "s", TurnID: "t2", UserID: "u", Seq: seq + 1, Role: protocol.RoleUser, Status: protocol.MessageComplete}
	if err := tx.MessageInsert(m, clientID); err != nil {
		return nil, store.Lease{}, err
	}
	if err := tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "turn.start", TurnID: "t2"}); err != nil {
		return nil, store.Lease{}, err
	}
	l, err := tx.LeaseAcquire("s", "B", 10*time.Second)
	if err != nil {
		return nil, l, err
	}
	_, err = tx.InboxNext("s")
	return m, l, err
}

// A message's send guesses its key unused, and the lease and inbox of the
// session it adopts, from what it read with the session's lock: its reads,
// then its writes with COMMIT. A key used after the read fails the guess, and
// the run without guessing finds the message the key names.
func TestSendGuessed(t *testing.T) {
	s, _ := endFixture(t)
	before := pgstore.ReadCounts()
	var m *protocol.Message
	if err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		m, _, err = sendAndAdopt(tx, "k1", func() {})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := pgstore.ReadCounts().Sub(before); got.Exchanges != 2 || got.Writes != 1 || m.ID != "m-k1" {
		t.Errorf("%d exchanges in %d transactions, message %s; want 2 in 1, m-k1", got.Exchanges, got.Writes, m.ID)
	}

	s, _ = endFixture(t)
	runs := 0
	err := s.Write(ctx, func(tx store.Tx) error {
		runs++
		var err error
		m, _, err = sendAndAdopt(tx, "k2", func() {
			if runs == 1 { // another transaction stores a message under the key after the read
				if _, err := pgstore.Pool(s).Exec(ctx, `INSERT INTO messages (id, session_id, user_id, seq, status, client_id, data)
					VALUES ('other', 's', 'u', 99, 'complete', 'k2', '{"id":"other","session_id":"s","user_id":"u","seq":99}')`); err != nil {
					t.Error(err)
				}
			}
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 || m.ID != "other" {
		t.Fatalf("%d runs, message %s: want the second run to find the key's message", runs, m.ID)
	}
}
