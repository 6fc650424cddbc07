package pgstore

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/store"
)

// driver is the transaction as store.Shared sends statements through it
// (store.Driver): after what waits to be sent (pipeline.go), with times as
// TIMESTAMPTZ and JSON as text.
type driver struct{ *tx }

func (d driver) Time(at time.Time) any { return at }

func (d driver) JSON(data []byte) any { return store.Text(data) }

func (d driver) Exec(query string, args ...any) (int64, error) {
	tag, err := d.exec(query, args...)
	return tag.RowsAffected(), err
}

// Send waits to go with the transaction's next statement (pipeline.go).
func (d driver) Send(query string, args ...any) error { return d.later(nil, query, args...) }

func (d driver) GetJSON(v any, query string, args ...any) error { return d.getJSON(v, query, args...) }

func (d driver) EachJSON(query string, args []any, fn func(data []byte) error) error {
	rows, err := d.query(query, args...)
	if err != nil {
		return d.note(err)
	}
	defer rows.Close()
	if err := store.EachJSON(rows, fn); err != nil {
		return err
	}
	return d.note(rows.Err())
}

// getJSON reads one data column into v, mapping no rows to store.ErrNotFound.
func (t *tx) getJSON(v any, query string, args ...any) error {
	return store.GetJSON(t.queryRow(query, args...), pgx.ErrNoRows, v)
}

// listJSON reads data columns into a slice.
func listJSON[T any](t *tx, query string, args ...any) ([]T, error) {
	return store.ListJSON[T](driver{t}, query, args...)
}
