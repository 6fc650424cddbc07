package sqlitestore

import (
	"database/sql"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// driver is the transaction as store.Shared sends statements through it
// (store.Driver), with times as Unix milliseconds.
type driver struct{ *tx }

// begun readies a transaction just made: the operations both stores do alike
// (store.Shared) use it as their driver.
func (t *tx) begun() *tx {
	t.Shared = store.Shared{D: driver{t}}
	return t
}

func (d driver) Time(at time.Time) any { return ms(at) }

func (d driver) Exec(query string, args ...any) (int64, error) {
	res, err := d.exec(query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (d driver) GetJSON(v any, query string, args ...any) error { return d.getJSON(v, query, args...) }

func (d driver) EachJSON(query string, args []any, fn func(data []byte) error) error {
	rows, err := d.q.QueryContext(d.ctx, query, args...)
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
	return store.GetJSON(t.q.QueryRowContext(t.ctx, query, args...), sql.ErrNoRows, v)
}

// listJSON reads data columns into a slice.
func listJSON[T any](t *tx, query string, args ...any) ([]T, error) {
	return store.ListJSON[T](driver{t}, query, args...)
}
