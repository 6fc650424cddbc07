package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/storetest"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

var ctx = context.Background()

func serverURL(t testing.TB) string { return testsvc.PostgresURL(t) }

func freshSchema(t testing.TB, url string) string { return testsvc.Schema(t, url) }

func openStore(t testing.TB, url, schema string, now func() time.Time) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(ctx, url, pgstore.Options{Now: now, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	url := serverURL(t)
	storetest.Run(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		return openStore(t, url, freshSchema(t, url), clock.Now)
	})
}

// Nodes starting together on an empty schema: the advisory lock lets one migrate,
// and all of them read the same initial epoch.
func TestConcurrentOpen(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	const n = 6
	stores := make([]*pgstore.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = pgstore.Open(ctx, url, pgstore.Options{Schema: schema}) })
	}
	wg.Wait()
	var epoch string
	for i, s := range stores {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		defer s.Close()
		var pos store.StreamPos
		if err := s.Read(ctx, func(tx store.Tx) error { var err error; pos, err = tx.StreamGet("u"); return err }); err != nil {
			t.Fatal(err)
		}
		if epoch == "" {
			epoch = pos.Epoch
		}
		if pos.Epoch == "" || pos.Epoch != epoch {
			t.Fatalf("store %d epoch %q, first %q", i, pos.Epoch, epoch)
		}
	}
}

// What SQLite keeps byte for byte, so does the TEXT column: JSON comes back exactly
// as written (JSONB would reorder keys and rewrite numbers).
func TestJSONBytesKept(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	const raw = `{"z":1.50,"a":[1e3, "\u00e9"],  "z2":null}`
	var u protocol.Update
	const compact = `{"z":1.50,"a":[1e3,"\u00e9"],"z2":null}` // as json.Marshal writes a RawMessage
	turn := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnWaiting,
		Tools: []protocol.HostTool{{Name: "h", Parameters: json.RawMessage(compact)}}}
	err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		if u, err = tx.UpdateAppend("u", protocol.UpdTurnUpdated, rawJSON(raw)); err != nil {
			return err
		}
		return tx.TurnInsert(turn)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Read(ctx, func(tx store.Tx) error {
		list, _, err := tx.UpdateList("u", 0, -1, 0)
		if err != nil {
			return err
		}
		if len(list) != 1 || string(list[0].Changes[0].Data) != string(u.Changes[0].Data) {
			return fmt.Errorf("update data changed: %v, wrote %s", list, u.Changes[0].Data)
		}
		got, err := tx.TurnGet("t")
		if err != nil {
			return err
		}
		if got := string(got.Tools[0].Parameters); got != compact {
			return fmt.Errorf("a host tool's parameters %s, wrote %s", got, compact)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rawJSON marshals to itself, compacted by encoding/json as any RawMessage is.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func TestReadIsReadOnly(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	err := s.Read(ctx, func(tx store.Tx) error { _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); return err })
	if err == nil {
		t.Fatal("UpdateAppend in Read succeeded")
	}
	err = s.Read(ctx, func(tx store.Tx) error { _, err := tx.LeaseAcquire("s", "A", time.Second); return err })
	if err == nil {
		t.Fatal("LeaseAcquire in Read succeeded")
	}
}

func benchStore(b *testing.B) store.Store {
	url := serverURL(b)
	return openStore(b, url, freshSchema(b, url), nil)
}

func BenchmarkWriteAppend(b *testing.B) { storetest.BenchWriteAppend(b, benchStore(b)) }

// Parallel writers, one user each: commits of different users do not wait for each
// other (no process-wide commit lock).
func BenchmarkWriteAppendParallel(b *testing.B) { storetest.BenchWriteAppendParallel(b, benchStore(b)) }

func BenchmarkReadSession(b *testing.B) { storetest.BenchReadSession(b, benchStore(b)) }
