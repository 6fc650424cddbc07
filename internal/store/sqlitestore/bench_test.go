package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/storetest"
)

func openBench(b *testing.B) *sqlitestore.Store {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkWriteAppend(b *testing.B) { storetest.BenchWriteAppend(b, openBench(b)) }

// Concurrent writers share commits (group commit).
func BenchmarkWriteAppendParallel(b *testing.B) { storetest.BenchWriteAppendParallel(b, openBench(b)) }

func BenchmarkReadSession(b *testing.B) { storetest.BenchReadSession(b, openBench(b)) }
