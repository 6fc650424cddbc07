package storetest

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Benchmarks of the hot paths every store shares; each store's tests run them on
// a store of their own.

var benchData = map[string]string{"id": "t1", "status": "running"}

// BenchWriteAppend is one durable commit carrying one update: the unit of every
// state change.
func BenchWriteAppend(b *testing.B, s store.Store) {
	b.ReportAllocs()
	for b.Loop() {
		err := s.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, benchData)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchWriteAppendParallel runs concurrent writers, one user each, as many
// sessions committing at once.
func BenchWriteAppendParallel(b *testing.B, s store.Store) {
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		user := fmt.Sprintf("u%d", n.Add(1))
		for pb.Next() {
			err := s.Write(ctx, func(tx store.Tx) error {
				_, err := tx.UpdateAppend(user, protocol.UpdTurnUpdated, benchData)
				return err
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchReadSession is a point read in a read-only snapshot, as the RPC handlers do.
func BenchReadSession(b *testing.B, s store.Store) {
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
