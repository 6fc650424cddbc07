package sqlitestore

import (
	"database/sql"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// driver is the transaction as store.Shared sends statements through it
// (store.Driver), with times as Unix milliseconds and JSON as bytes.
type driver struct{ *tx }

func (d driver) Time(at time.Time) any { return ms(at) }

func (d driver) JSON(data []byte) any { return data }

func (d driver) Exec(query string, args ...any) (int64, error) {
	res, err := d.exec(query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Send sends the write at once: SQLite runs in this process, so there is no
// exchange to save.
func (d driver) Send(query string, args ...any) error {
	_, err := d.exec(query, args...)
	return err
}

func (d driver) GetJSON(v any, query string, args ...any) error { return d.getJSON(v, query, args...) }

func (d driver) EachJSON(query string, args []any, fn func(data []byte) error) error {
	rows, err := d.q.QueryContext(d.Ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := store.EachJSON(rows, fn); err != nil {
		return err
	}
	return rows.Err()
}

// getJSON reads one data column into v, mapping no rows to store.ErrNotFound.
func (t *tx) getJSON(v any, query string, args ...any) error {
	return store.GetJSON(t.q.QueryRowContext(t.Ctx, query, args...), sql.ErrNoRows, v)
}

// listJSON reads data columns into a slice.
func listJSON[T any](t *tx, query string, args ...any) ([]T, error) {
	return store.ListJSON[T](driver{t}, query, args...)
}
