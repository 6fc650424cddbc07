package pgstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Bounds of a store's decoded rows: past either, they are all dropped. A
// round trip reads a few rows of its session, so these hold the rows of
// thousands of sessions at work; a row longer than maxDecodedRow (a call
// with a large result) is decoded at each read instead. The bound on bytes
// is of the text: the decoded values take two to four times as much.
const (
	maxDecodedRows     = 1 << 14
	maxDecodedRowBytes = 16 << 20
	maxDecodedRow      = 256 << 10
)

// decodedRows keeps the sessions, turns and RTCs as this process last wrote
// or decoded them: their stored text and what it decodes to (never changed:
// transactions get copies, store.Clone; a write's Topic change carries the
// value it kept, store.Batch.Decoded). A row read with the same text is a copy
// instead of a decode. A transition reads again what the one before it wrote
// (the turn, the call) and the session, which seldom changes: those reads
// decode nothing (the transcript's lists are decoded as before). The text
// decides: a row another node changed, or one that a write of this node
// which rolled back did not change, reads as other text and is decoded. In
// tests every copy, and every value a write keeps, is checked against a
// decode of its text.
type decodedRows struct {
	mu    sync.Mutex
	m     map[store.RowKey]store.DecodedRow
	bytes int
}

// get returns the row kept for key when it was kept for the same text.
func (d *decodedRows) get(key store.RowKey, data []byte) (store.DecodedRow, bool) {
	d.mu.Lock()
	r, ok := d.m[key]
	d.mu.Unlock()
	// Compared outside the lock: a kept row never changes.
	return r, ok && bytes.Equal(r.Data, data)
}

// keeps reports whether put keeps a row of data as its text: not empty (a
// write whose value did not encode stored no JSON, which must fail to
// decode) and not too long.
func keeps(data []byte) bool { return len(data) > 0 && len(data) <= maxDecodedRow }

// put keeps v as what data, the row key's stored text, decodes to. Neither
// may change afterwards.
func (d *decodedRows) put(key store.RowKey, data []byte, v any) {
	if !keeps(data) {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, replaced := d.m[key]; d.m == nil || !replaced && len(d.m) >= maxDecodedRows || d.bytes > maxDecodedRowBytes {
		d.m, d.bytes = map[store.RowKey]store.DecodedRow{}, 0
	}
	d.bytes += len(data) - len(d.m[key].Data)
	d.m[key] = store.DecodedRow{Data: data, Value: v}
}

// decodeRow is the row kind/id, stored as data, decoded into a new T: a copy
// of the value kept for that text, or a decode that is then kept.
func decodeRow[T any](d *decodedRows, kind, id string, data []byte) (*T, error) {
	key := store.RowKey{Kind: kind, ID: id}
	if r, ok := d.get(key, data); ok {
		if v, ok, err := store.CopyDecoded[T](kind, id, r); ok {
			return v, err
		}
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return &v, err
	}
	if keeps(data) {
		d.put(key, data, store.Clone(&v)) // pgx scans text into a slice of its own
	}
	return &v, nil
}

// getRow reads the one data column of query, the row kind/id, into a new T
// (decodeRow); store.ErrNotFound when there is no row.
func getRow[T any](t *tx, kind, id, query string, args ...any) (*T, error) {
	var data []byte
	err := t.queryRow(query, args...).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return new(T), store.ErrNotFound
	}
	if err != nil {
		return new(T), err
	}
	return decodeRow[T](t.decoded, kind, id, data)
}

// wrote keeps a copy of v as what data decodes to, for the row kind/id this
// transaction wrote as data from v, and the change of v added next carries
// it (store.Batch.Decoded: after v's Sent). In tests it fails when that value
// is not what a decode gives.
func wrote[T any](t *tx, kind, id string, data []byte, v *T) error {
	if !keeps(data) {
		return nil
	}
	kept := store.CloneAsDecoded(v)
	if err := store.CheckDecoded(kind, id, data, kept); err != nil {
		return err
	}
	t.decoded.put(store.RowKey{Kind: kind, ID: id}, data, kept)
	if e, ok := any(v).(protocol.Keyed); ok {
		t.Batch.Decoded(e, any(kept).(protocol.Keyed))
	}
	return nil
}
