package sqlitestore

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// maxKnownRows bounds the writer's known rows and sessions' inbox
// items, and maxKnownRowBytes the stored size of its rows (an RTC may carry a
// large result): past either they are read again.
const (
	maxKnownRows     = 1 << 14
	maxKnownRowBytes = 64 << 20
)

// knownRows are the sessions, turns and RTCs as the writer last committed or
// read them, by kind and id. The writer is the database's only one, and every
// write of those rows is one of this package's (or store.Shared's) inserts and
// compare-and-sets, which note the row they wrote in the transaction's
// store.RowCache: a row known here is the row in the database, so a write
// transaction reads it without a statement, and decodes it once per change
// (transactions get copies, store.Clone; the Topic change of the write that
// kept a value carries that value, store.Batch.Decoded, and its readers never
// write through it). Only the group's leader uses it; a
// write that rolls back leaves it as it was, and a commit that fails clears it.
// In tests every row taken from it is checked against the database.
type knownRows struct {
	m     map[store.RowKey]*store.DecodedRow // decoded once read
	bytes int                                // of the rows' data
}

// commit keeps the rows a write read or wrote, once it took effect.
func (k *knownRows) commit(t *tx) {
	rows := t.Rows.All()
	if len(k.m)+len(rows) > maxKnownRows {
		k.clear()
	}
	if k.m == nil {
		k.m = map[store.RowKey]*store.DecodedRow{}
	}
	for key, data := range rows {
		kr := k.m[key]
		w, decoded := t.decoded[key]
		decoded = decoded && sameBytes(w.Data, data)
		if kr != nil && sameBytes(kr.Data, data) {
			if kr.Value == nil && decoded {
				kr.Value = w.Value // a read decoded it
			}
			continue
		}
		if kr != nil {
			k.bytes -= len(kr.Data)
		}
		kr = &store.DecodedRow{Data: data}
		if decoded {
			kr.Value = w.Value
		}
		k.m[key] = kr
		k.bytes += len(data)
	}
	if k.bytes > maxKnownRowBytes {
		k.clear()
	}
}

func (k *knownRows) clear() {
	clear(k.m)
	k.bytes = 0
}

// text is v for an error message: a row's JSON as text, anything else as %+v.
func text(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprintf("%+v", v)
}

// sameBytes reports whether a and b are the same slice (not only equal bytes).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// getRow reads the row kind/id (query reads its data by id) into a new T:
// once per write transaction (store.RowCache), without a statement when the
// writer knows it (knownRows), decoded once per change.
func getRow[T any](t *tx, kind, id, query string) (*T, error) {
	if !t.Writable {
		var v T
		return &v, t.getJSON(&v, query, id)
	}
	key := store.RowKey{Kind: kind, ID: id}
	data, ok := t.Rows.Get(kind, id)
	kr, known := t.knownRow(key)
	if !ok && known {
		read := func(q querier) ([]byte, error) {
			var stored []byte
			err := q.QueryRowContext(t.Ctx, query, id).Scan(&stored)
			return stored, err
		}
		if err := checkKnown(t, kind, id, kr.Data, read, bytes.Equal); err != nil {
			return nil, err
		}
		data, ok = kr.Data, true
		t.Rows.Put(kind, id, data)
	}
	if !ok {
		err := t.q.QueryRowContext(t.Ctx, query, id).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			return new(T), store.ErrNotFound
		}
		if err != nil {
			return new(T), err
		}
		t.Rows.Put(kind, id, data)
	}
	if known && sameBytes(kr.Data, data) {
		if v, ok, err := store.CopyDecoded[T](kind, id, kr); ok {
			return v, err
		}
	}
	if w, ok := t.decoded[key]; ok && sameBytes(w.Data, data) {
		if v, ok, err := store.CopyDecoded[T](kind, id, w); ok {
			return v, err
		}
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return &v, err
	}
	t.decodedAs(key, data, store.Clone(&v))
	return &v, nil
}

// wrote notes the row kind/id this transaction wrote as data from entity
// (store.RowCache), and a copy of entity as what data decodes to: the next
// read of it, here or in a later write, decodes nothing, and the change of
// entity carries that copy (store.Batch.Decoded: after its Sent).
func (t *tx) wrote(kind, id string, data []byte, entity protocol.Keyed) {
	v := store.CloneAsDecoded(entity)
	t.Rows.Put(kind, id, data)
	t.decodedAs(store.RowKey{Kind: kind, ID: id}, data, v)
	t.Batch.Decoded(entity, v)
}

// decodedAs notes v as what the row key's data decodes to: this
// transaction's next read of it decodes nothing, nor, once the transaction
// took effect, the writer's (knownRows.commit keeps v).
func (t *tx) decodedAs(key store.RowKey, data []byte, v any) {
	if t.decoded == nil {
		t.decoded = map[store.RowKey]store.DecodedRow{}
	}
	t.decoded[key] = store.DecodedRow{Data: data, Value: v}
}

// on is a transaction of t's time that sends its statements to q: what a
// check of checkKnown reads with.
func (t *tx) on(q querier) *tx {
	c := &tx{q: q}
	c.Shared = store.NewShared(driver{c}, store.TxState{Ctx: t.Ctx, At: t.At, Epoch: t.Epoch})
	return c
}

// checkKnown, in tests, reads again what the writer knows of what of id
// (known) and fails when the database holds another: a write that did not
// note it. A prepared run (prepared.go) has it done under the writer, in
// its place among the run's statements.
func checkKnown[V any](t *tx, what, id string, known V, read func(querier) (V, error), equal func(a, b V) bool) error {
	if !testing.Testing() {
		return nil
	}
	check := func(q querier) error {
		stored, err := read(q)
		if err != nil || !equal(stored, known) {
			return fmt.Errorf("sqlitestore: the writer knows %s %s as %s, the database holds %s (%v)", what, id, text(known), text(stored), err)
		}
		return nil
	}
	if rec, ok := t.q.(*recorder); ok {
		rec.putOff(check)
		return nil
	}
	return check(uncounted(t.q))
}
