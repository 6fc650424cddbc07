package pgstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// A claim pass reads no session a live holder drains: with 100 sessions
// holding work under another node's live leases, and a few waiting on the
// ready queue, it reads the queue's few rows and nothing else, however many
// sessions are held.
func TestClaimPassReadsNoHeldSession(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.NodeBeat("B", time.Hour) }); err != nil {
		t.Fatal(err)
	}
	for i := range 103 {
		id := fmt.Sprint("s", i)
		if err := s.Write(ctx, func(tx store.Tx) error {
			if err := tx.InboxInsert(&store.InboxItem{SessionID: id, Kind: "k", TurnID: "t"}); err != nil {
				return err
			}
			if i < 100 {
				_, err := tx.LeaseAcquire(id, "B", time.Hour)
				return err
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if ids := candidates(t, s, 64); fmt.Sprint(ids) != "[s100 s101 s102]" {
		t.Fatalf("candidates %v, want the three sessions no one holds", ids)
	}
	var plan string
	if err := pgstore.Pool(s).QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+pgstore.ClaimCandidates, time.Now(), 64).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var doc []struct{ Plan map[string]any }
	if err := json.Unmarshal([]byte(plan), &doc); err != nil {
		t.Fatal(err)
	}
	read := map[string]float64{}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if rel, ok := n["Relation Name"].(string); ok {
			loops, _ := n["Actual Loops"].(float64)
			rows, _ := n["Actual Rows"].(float64)
			removed, _ := n["Rows Removed by Filter"].(float64)
			read[rel] += (rows + removed) * loops
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			walk(k.(map[string]any))
		}
	}
	walk(doc[0].Plan)
	if read["ready"] != 3 || read["leases"] != 0 || read["inbox"] != 0 {
		t.Fatalf("rows read by a claim pass: %v; want the 3 of the ready queue and nothing of the 100 held sessions", read)
	}
}

// A database whose inbox had work before the ready queue existed finds that
// work on the queue after the upgrade.
func TestMigrateFrom006QueuesWork(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	if err := pgstore.MigrateTo(ctx, url, schema, 6); err != nil {
		t.Fatal(err)
	}
	queueBehindTheStore(t, url, schema, "old")
	if ids := candidates(t, openStore(t, url, schema, nil), 10); fmt.Sprint(ids) != "[old]" {
		t.Fatalf("candidates after the upgrade: %v", ids)
	}
}

// candidates runs a claim pass's read.
func candidates(t *testing.T, s *pgstore.Store, limit int) []string {
	t.Helper()
	var ids []string
	if err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		ids, err = tx.InboxSessions(limit)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// Work queued without a ready row (by a node of an earlier release, still
// running during an upgrade) is found once a node starts.
func TestStartRequeuesWorkOffTheQueue(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	s := openStore(t, url, schema, nil)
	queueBehindTheStore(t, url, schema, "older")
	if ids := candidates(t, s, 10); len(ids) != 0 {
		t.Fatalf("candidates before a start: %v", ids)
	}
	if ids := candidates(t, openStore(t, url, schema, nil), 10); fmt.Sprint(ids) != "[older]" {
		t.Fatalf("candidates after a start: %v", ids)
	}
}

// queueBehindTheStore inserts an inbox item for the session as a node of an
// earlier release would: without the ready queue.
func queueBehindTheStore(t *testing.T, url, schema, sessionID string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO `+pgx.Identifier{schema, "inbox"}.Sanitize()+
		` (session_id, kind, turn_id, created_at) VALUES ($1, 'k', 't', now())`, sessionID); err != nil {
		t.Fatal(err)
	}
}

// A lease given back with work left puts the session on the ready queue in
// the place of its oldest item: a session that waited under a lease (for a
// node's slot) comes before work queued meanwhile.
func TestLeaseGivenBackKeepsItsPlace(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	held := heldWithWork(t, s, "waited", "A")
	time.Sleep(10 * time.Millisecond) // the queue's clock moves on
	queue(t, s, "newer")
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.LeaseRelease(held) }); err != nil {
		t.Fatal(err)
	}
	if ids := candidates(t, s, 10); fmt.Sprint(ids) != "[waited newer]" {
		t.Fatalf("candidates %v, want the session that waited first", ids)
	}
}

// heldWithWork queues an item for the session and takes its lease for a
// live holder, in one write.
func heldWithWork(t *testing.T, s *pgstore.Store, sessionID, holder string) store.Lease {
	t.Helper()
	var l store.Lease
	if err := s.Write(ctx, func(tx store.Tx) error {
		if err := tx.NodeBeat(holder, time.Hour); err != nil {
			return err
		}
		if err := tx.InboxInsert(&store.InboxItem{SessionID: sessionID, Kind: "k", TurnID: "t"}); err != nil {
			return err
		}
		var err error
		l, err = tx.LeaseAcquire(sessionID, holder, time.Hour)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return l
}

// queue queues an item for the session, whose lease it does not take.
func queue(t *testing.T, s *pgstore.Store, sessionID string) {
	t.Helper()
	if err := s.Write(ctx, func(tx store.Tx) error {
		return tx.InboxInsert(&store.InboxItem{SessionID: sessionID, Kind: "k", TurnID: "t"})
	}); err != nil {
		t.Fatal(err)
	}
}

// One transaction that gives back several leases (a node's waiting drains,
// when it first sees another node) puts back on the ready queue those with
// work left, each at its oldest item, and notifies each; a lease without
// work, or given back with a token that is not the holder's, is not queued.
func TestLeasesGivenBackTogether(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	leases := map[string]store.Lease{}
	for _, id := range []string{"second", "first", "stale"} {
		leases[id] = heldWithWork(t, s, id, "A")
		time.Sleep(5 * time.Millisecond) // the queue's clock moves on
	}
	if err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		leases["idle"], err = tx.LeaseAcquire("idle", "A", time.Hour)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stale := leases["stale"]
	stale.Token--
	sent0, _ := pgstore.NotifyCounts()
	if err := s.Write(ctx, func(tx store.Tx) error {
		for _, l := range []store.Lease{leases["first"], leases["idle"], stale, leases["second"]} {
			if err := tx.LeaseRelease(l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ids := candidates(t, s, 10); fmt.Sprint(ids) != "[second first]" {
		t.Fatalf("candidates %v, want the two given back with work, the one whose item is older first", ids)
	}
	if sent, _ := pgstore.NotifyCounts(); sent-sent0 != 2 {
		t.Errorf("%d notifications, want one for each session given back with work", sent-sent0)
	}
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.LeaseCheck(leases["stale"]) }); err != nil {
		t.Errorf("the lease given back with an old token: %v, want it still held", err)
	}
}

// A claim that finds the inbox empty gives the lease back in its
// transaction; an item another transaction commits meanwhile keeps the
// session on the ready queue (the claim's taking it off went by the gen it
// had bumped itself).
func TestClaimGivenBackKeepsWorkQueuedMeanwhile(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	s := openStore(t, url, schema, nil)
	api := openStore(t, url, schema, nil)
	if err := s.Write(ctx, func(tx store.Tx) error {
		if err := tx.NodeBeat("A", time.Hour); err != nil {
			return err
		}
		l, err := tx.LeaseAcquire("S", "A", time.Hour) // the session's lease row, given back
		if err != nil {
			return err
		}
		return tx.LeaseRelease(l)
	}); err != nil {
		t.Fatal(err)
	}
	runs := 0
	if err := s.Write(ctx, func(tx store.Tx) error {
		runs++
		l, err := tx.LeaseAcquire("S", "A", time.Hour)
		if err != nil {
			return err
		}
		if _, err := tx.InboxNext("S"); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("inbox next: %v", err)
		}
		if runs == 1 {
			if err := api.Write(ctx, func(tx store.Tx) error {
				return tx.InboxInsert(&store.InboxItem{SessionID: "S", Kind: "k", TurnID: "t"})
			}); err != nil {
				return err
			}
		}
		return tx.LeaseRelease(l)
	}); err != nil {
		t.Fatal(err)
	}
	if ids := candidates(t, s, 10); fmt.Sprint(ids) != "[S]" {
		t.Fatalf("candidates %v, want the session with work and its lease given back", ids)
	}
}

// One lease given back twice in a transaction is given back once.
func TestLeaseGivenBackTwiceInATransaction(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	l := heldWithWork(t, s, "S", "A")
	if err := s.Write(ctx, func(tx store.Tx) error {
		if err := tx.LeaseRelease(l); err != nil {
			return err
		}
		return tx.LeaseRelease(l)
	}); err != nil {
		t.Fatal(err)
	}
	if ids := candidates(t, s, 10); fmt.Sprint(ids) != "[S]" {
		t.Fatalf("candidates %v, want the session given back", ids)
	}
}

// A lease given back with work left keeps its session's place at its oldest
// item even when work queued while it was held had put it on the queue later.
func TestLeaseGivenBackKeepsItsPlaceWhenQueuedMeanwhile(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	held := heldWithWork(t, s, "waited", "A")
	for _, id := range []string{"newer", "waited"} { // "waited" queued behind "newer" while A holds it
		time.Sleep(10 * time.Millisecond) // the queue's clock moves on
		queue(t, s, id)
	}
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.LeaseRelease(held) }); err != nil {
		t.Fatal(err)
	}
	if ids := candidates(t, s, 10); fmt.Sprint(ids) != "[waited newer]" {
		t.Fatalf("candidates %v, want the session that waited first", ids)
	}
}
