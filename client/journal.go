package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// interrupted is the error the model sees for a call this device started and
// never finished (the process ended while the tool ran).
const interrupted = "interrupted: the client stopped while the tool ran; it was not run again"

// outcome is what a call ended with on this device, kept until the server
// acknowledged it (the outbox).
type outcome struct {
	ClientID string          `json:"client_id"`
	Reject   bool            `json:"reject,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	OK       bool            `json:"ok,omitempty"`
	Output   json.RawMessage `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// record is one line of the journal file.
type record struct {
	Op      string   `json:"op"` // start, outcome, ack
	RTC     string   `json:"rtc"`
	Session string   `json:"session,omitempty"`
	Tool    string   `json:"tool,omitempty"`
	Outcome *outcome `json:"outcome,omitempty"`
}

// entry is the folded state of one call.
type entry struct {
	Session string
	Tool    string
	Started bool
	Outcome *outcome
	Acked   bool
}

// journal is an append-only file of records, synced after every append. With
// no file it lives in memory.
type journal struct {
	mu      sync.Mutex
	f       *os.File
	lock    *os.File // holds the flock of the journal while open
	entries map[string]*entry
	acked   int // acknowledged entries in entries
}

// maxRecordBytes bounds one journal line (results are bounded below it).
const maxRecordBytes = 4 << 20

// openJournal reads the journal of a device, drops acknowledged calls (their
// RTCs are terminal on the server, so they can never run again) and keeps the
// file open for appends.
func openJournal(dir, deviceID string) (*journal, error) {
	j := &journal{entries: map[string]*entry{}}
	if dir == "" {
		return j, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	path := filepath.Join(dir, "journal-"+deviceID+".jsonl")
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := lockFile(lock); err != nil {
		lock.Close()
		return nil, fmt.Errorf("journal %s is in use by another process: %w", path, err)
	}
	// The lock file stays open (and locked) for the life of the process.
	if err := j.load(path); err != nil {
		lock.Close()
		return nil, err
	}
	if err := j.rewrite(path); err != nil {
		lock.Close()
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("journal: %w", err)
	}
	j.f, j.lock = f, lock
	return j, nil
}

func (j *journal) load(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxRecordBytes+1024)
	line := 0
	for sc.Scan() {
		line++
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.RTC == "" {
			// Only the last line may be cut (the process died while appending it):
			// that record was never synced, so nothing relied on it.
			if !bytes.HasSuffix(data, []byte("\n")) && bytes.HasSuffix(data, sc.Bytes()) {
				break
			}
			return fmt.Errorf("journal %s: line %d is damaged", path, line)
		}
		j.fold(r)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("journal %s: %w", path, err)
	}
	return nil
}

// rewrite replaces the file with the calls that are not acknowledged, through
// a synced temporary file and a rename.
func (j *journal) rewrite(path string) error {
	var buf bytes.Buffer
	for id, e := range j.entries {
		if e.Acked {
			delete(j.entries, id)
			continue
		}
		for _, r := range recordsOf(id, e) {
			b, _ := json.Marshal(r)
			buf.Write(append(b, '\n'))
		}
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

func recordsOf(id string, e *entry) []record {
	var rs []record
	if e.Started {
		rs = append(rs, record{Op: "start", RTC: id, Session: e.Session, Tool: e.Tool})
	}
	if e.Outcome != nil {
		rs = append(rs, record{Op: "outcome", RTC: id, Session: e.Session, Tool: e.Tool, Outcome: e.Outcome})
	}
	return rs
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

func (j *journal) fold(r record) {
	e := j.entries[r.RTC]
	if e == nil {
		e = &entry{Session: r.Session, Tool: r.Tool}
		j.entries[r.RTC] = e
	}
	switch r.Op {
	case "start":
		e.Started = true
	case "outcome":
		if e.Outcome == nil {
			e.Outcome = r.Outcome
		}
	case "replace": // an outcome the server refused as too large, replaced by an error
		e.Outcome = r.Outcome
	case "ack":
		e.Acked = true
		j.acked++
		if j.acked > maxAcked {
			// Acknowledged calls are terminal on the server; one delivered again
			// is refused there (update_status executing answers conflict).
			for id, e := range j.entries {
				if e.Acked {
					delete(j.entries, id)
				}
			}
			j.acked = 0
		}
	}
}

// maxAcked bounds the acknowledged calls kept in memory.
const maxAcked = 4096

// appendLocked writes one record and syncs it before the state changes.
func (j *journal) appendLocked(r record) error {
	if j.f != nil {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := j.f.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	j.fold(r)
	return nil
}

// get returns a copy of a call's entry.
func (j *journal) get(id string) (entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.entries[id]
	if !ok {
		return entry{}, false
	}
	return *e, true
}

// start claims a call for execution: false when it was started, ended or
// acknowledged before.
func (j *journal) start(id, session, tool string) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.entries[id]; ok {
		return false, nil
	}
	return true, j.appendLocked(record{Op: "start", RTC: id, Session: session, Tool: tool})
}

// finish records a call's outcome; false when it already has one.
func (j *journal) finish(id, session, tool string, o outcome) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e := j.entries[id]; e != nil && (e.Outcome != nil || e.Acked) {
		return false, nil
	}
	return true, j.appendLocked(record{Op: "outcome", RTC: id, Session: session, Tool: tool, Outcome: &o})
}

// replace swaps the outcome of a call still in the outbox.
func (j *journal) replace(id string, o outcome) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appendLocked(record{Op: "replace", RTC: id, Outcome: &o})
}

// ack records that the server has the call's outcome (or that nothing is left
// to send: the call ended on the server first).
func (j *journal) ack(id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e := j.entries[id]; e != nil && e.Acked {
		return nil
	}
	return j.appendLocked(record{Op: "ack", RTC: id})
}

// outbox lists the calls whose outcome waits for the server.
func (j *journal) outbox() map[string]outcome {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]outcome{}
	for id, e := range j.entries {
		if e.Outcome != nil && !e.Acked {
			out[id] = *e.Outcome
		}
	}
	return out
}

// unfinished lists the calls started without an outcome.
func (j *journal) unfinished() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var ids []string
	for id, e := range j.entries {
		if e.Started && e.Outcome == nil && !e.Acked {
			ids = append(ids, id)
		}
	}
	return ids
}

func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.lock.Close()
	j.f, j.lock = nil, nil
	return err
}
