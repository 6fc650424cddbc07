package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJournalReopen: what was synced survives a reopen, acknowledged calls are
// dropped, a torn last line (a crash while appending) is ignored, and damage
// anywhere else is refused.
func TestJournalReopen(t *testing.T) {
	dir := t.TempDir()
	j, err := openJournal(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := j.start("r1", "s", "tool"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := j.start("r1", "s", "tool"); ok {
		t.Fatal("a call was started twice")
	}
	if _, err := j.start("r2", "s", "tool"); err != nil {
		t.Fatal(err)
	}
	if _, err := j.finish("r2", "s", "tool", outcome{ClientID: "c2", OK: true, Output: []byte(`"done"`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.finish("r3", "s", "tool", outcome{ClientID: "c3", Error: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := j.ack("r3"); err != nil {
		t.Fatal(err)
	}
	if _, err := openJournal(dir, "dev"); err == nil {
		t.Fatal("a second process could open the journal in use")
	}
	j.close()
	path := filepath.Join(dir, "journal-dev.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"op":"outcome","rtc":"r1","outc`)
	f.Close()

	j, err = openJournal(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if got := j.unfinished(); len(got) != 1 || got[0] != "r1" {
		t.Fatalf("unfinished %v", got)
	}
	if out := j.outbox(); len(out) != 1 || string(out["r2"].Output) != `"done"` {
		t.Fatalf("outbox %v", out)
	}
	if _, ok := j.get("r3"); ok {
		t.Fatal("an acknowledged call was kept")
	}
	j.close()

	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte("garbage\n"+string(b)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := openJournal(dir, "dev"); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged journal: %v", err)
	}
}
