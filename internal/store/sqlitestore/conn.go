package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// maxStmts bounds a connection's prepared statements; queries are constant
// strings, so the bound is only a guard against a query built from data.
const maxStmts = 256

// conn is one SQLite connection, held for the life of the store, with its prepared
// statements. Transactions on it are begun and ended by hand, so a statement can be
// prepared inside one (a pooled database/sql transaction would need a second
// connection to prepare on, and the writer has only one).
type conn struct {
	c     *sql.Conn
	stmts map[string]*sql.Stmt
}

func newConn(ctx context.Context, db *sql.DB) (*conn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, stmts: make(map[string]*sql.Stmt)}, nil
}

// stmt returns the prepared statement for query, preparing it on first use.
func (c *conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	s, err := c.c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(c.stmts) < maxStmts {
		c.stmts[query] = s
	}
	return s, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (c *conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// QueryRowContext reports a failed prepare through the row's Scan, as database/sql does.
func (c *conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return c.c.QueryRowContext(ctx, query, args...) // reports the same error from Scan
	}
	return s.QueryRowContext(ctx, args...)
}

// begin starts a transaction: BEGIN IMMEDIATE takes the write lock at once, so a
// writer never fails to upgrade a read snapshot.
func (c *conn) begin(ctx context.Context, immediate bool) error {
	q := "BEGIN"
	if immediate {
		q = "BEGIN IMMEDIATE"
	}
	if _, err := c.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return nil
}

// end commits or rolls back. Rollback runs even when ctx is done, so the connection
// goes back clean.
func (c *conn) end(commit bool) error {
	q := "ROLLBACK"
	if commit {
		q = "COMMIT"
	}
	_, err := c.ExecContext(context.Background(), q)
	return err
}

func (c *conn) close() error {
	for _, s := range c.stmts {
		s.Close()
	}
	return c.c.Close()
}
