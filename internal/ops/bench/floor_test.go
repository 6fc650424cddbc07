package bench

import (
	"context"
	"path/filepath"
	"testing"
)

func TestFloor(t *testing.T) {
	f, err := measureFloor(context.Background(), Options{FloorN: 50}, filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Publish.N != 50 || f.Commit.N != 50 || f.Publish.P50 <= 0 || f.Commit.P50 <= 0 {
		t.Fatalf("floor %+v", f)
	}
	if f.SQLite.Held <= 0 || f.SQLite.Pages < 2 {
		t.Fatalf("SQLite floor %+v", f.SQLite)
	}
}
