package sqlitestore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

func openBench(b *testing.B) *sqlitestore.Store {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// One durable commit carrying one update: the unit of every state change.
func BenchmarkWriteAppend(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	data := map[string]string{"id": "t1", "status": "running"}
	b.ReportAllocs()
	for b.Loop() {
		err := s.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, data)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// Concurrent writers, one user each, as many sessions committing at once.
func BenchmarkWriteAppendParallel(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	data := map[string]string{"id": "t1", "status": "running"}
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		user := fmt.Sprintf("u%d", n.Add(1))
		for pb.Next() {
			err := s.Write(ctx, func(tx store.Tx) error {
				_, err := tx.UpdateAppend(user, protocol.UpdTurnUpdated, data)
				return err
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// A point read in a read-only snapshot, as the RPC handlers do.
func BenchmarkReadSession(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	sess := &protocol.Session{ID: "s1", UserID: "u", DeviceID: "d", Title: "t", WorkMode: "auto", Status: "open"}
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.SessionInsert(sess) }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		err := s.Read(ctx, func(tx store.Tx) error {
			_, err := tx.SessionGet("s1")
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
