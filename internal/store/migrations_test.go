package store_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rtcagent/rtcagent/internal/store"
)

func TestMigrationsInVersionOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"migrations/10_ten.sql": {}, "migrations/2_two.sql": {}, "migrations/001_init.sql": {}, "migrations/README": {},
	}
	ms, err := store.Migrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, m := range ms {
		got = append(got, m.Version)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 10 {
		t.Fatalf("versions %v, want [1 2 10]", got)
	}
}

func TestMigrationsRefuseDuplicatesAndBadNames(t *testing.T) {
	for _, fsys := range []fstest.MapFS{
		{"migrations/001_init.sql": {}, "migrations/002_nodes.sql": {}, "migrations/002_more.sql": {}},
		{"migrations/init.sql": {}},
		{"migrations/000_zero.sql": {}},
	} {
		if _, err := store.Migrations(fsys); err == nil || !strings.Contains(err.Error(), "migration") {
			t.Errorf("%v: err %v, want a migration error", fsys, err)
		}
	}
}
