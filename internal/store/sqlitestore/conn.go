package sqlitestore

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
)

// maxStmts bounds a connection's prepared statements; queries are constant
// strings, so the bound is only a guard against a query built from data.
const maxStmts = 256

// conn is one SQLite connection, held for the life of the store, with its prepared
// statements. Transactions on it are begun and ended by hand, so a statement can be
// prepared inside one (a pooled database/sql transaction would need a second
// connection to prepare on, and the writer has only one).
//
// Statements that change the database run on the driver's own statements,
// inside sql.Conn.Raw, instead of through database/sql's: a write sends
// several a transaction, and database/sql's generic path (finding the
// statement's connection, converting each argument by reflection, wrapping
// the result) cost more than SQLite's execution of a small one. Queries go
// through database/sql, which scans their rows.
type conn struct {
	c     *sql.Conn
	stmts map[string]*sql.Stmt
	exec  map[string]sqldriver.StmtExecContext // prepared on the driver's connection, used only inside Raw
	args  []sqldriver.NamedValue               // the arguments of the statement running, reused
}

func newConn(ctx context.Context, db *sql.DB) (*conn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, stmts: make(map[string]*sql.Stmt), exec: make(map[string]sqldriver.StmtExecContext)}, nil
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

// ExecContext runs query with args on the driver's prepared statement
// (conn), converting the arguments as database/sql does.
func (c *conn) ExecContext(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	nv := c.args[:0]
	for i, a := range args {
		v, err := execArg(a)
		if err != nil {
			return nil, fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		nv = append(nv, sqldriver.NamedValue{Ordinal: i + 1, Value: v})
	}
	err = c.c.Raw(func(dc any) error {
		s, kept, err := c.execStmt(ctx, dc, query)
		if err != nil {
			return err
		}
		if !kept {
			defer s.(sqldriver.Stmt).Close()
		}
		res, err = s.ExecContext(ctx, nv)
		return err
	})
	clear(nv) // no argument outlives its statement
	c.args = nv
	return res, err
}

// execArg is a as the driver takes it: database/sql's default conversion,
// without reflection for the types the store sends.
func execArg(a any) (sqldriver.Value, error) {
	switch v := a.(type) {
	case nil, int64, string, []byte, bool, float64:
		return v, nil
	case int:
		return int64(v), nil
	}
	return sqldriver.DefaultParameterConverter.ConvertValue(a)
}

// execStmt returns query prepared on dc, the driver's connection, and
// whether it is kept for the next use (the caller closes it otherwise); it
// is called inside Raw only.
func (c *conn) execStmt(ctx context.Context, dc any, query string) (s sqldriver.StmtExecContext, kept bool, err error) {
	if s, ok := c.exec[query]; ok {
		return s, true, nil
	}
	ds, err := dc.(sqldriver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, false, err
	}
	s, ok := ds.(sqldriver.StmtExecContext)
	if !ok {
		ds.Close()
		return nil, false, fmt.Errorf("sqlitestore: the driver's statements do not run with a context")
	}
	if len(c.exec) < maxStmts {
		c.exec[query] = s
		return s, true, nil
	}
	return s, false, nil
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
	_ = c.c.Raw(func(any) error {
		for _, s := range c.exec {
			s.(sqldriver.Stmt).Close()
		}
		return nil
	})
	return c.c.Close()
}
