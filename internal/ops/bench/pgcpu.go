package bench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// clockTick is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on
// Linux).
const clockTick = 10 * time.Millisecond

// pgBackends measures the CPU time of the PostgreSQL server processes that serve
// this run's connections: those whose application_name is the run's (set on its
// database URL), read from /proc when the server runs on this machine. The
// figure leaves out the server's shared work (WAL writer, checkpointer) and
// other users of the same server.
type pgBackends struct {
	dbURL, app string
	start      pgReading
	startErr   error
}

// withAppName sets the application_name of a PostgreSQL URL.
func withAppName(dbURL, app string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// pgReading is what the run's backends had done at one moment: the CPU time
// of each (by pid) and the rows their scans read, by table of the run's schema.
type pgReading struct {
	cpu  map[int]time.Duration
	rows map[string]int64
	wal  *PGWAL // nil when the server has no pg_stat_wal (before PostgreSQL 14)
}

// PGWAL is what the whole PostgreSQL server wrote to its WAL (pg_stat_wal):
// records, full-page images and bytes. Like SQLite's WAL pages, it counts
// what a round trip changes (rows and index entries), whatever the machine's
// speed; it is the whole server's, so other work on it counts too.
type PGWAL struct{ Records, FPI, Bytes int64 }

// read takes a pgReading on one connection. Rows read are the rows of
// sequential scans and the rows fetched through indexes (pg_stat_user_tables
// of the search_path of the run's URL). PostgreSQL publishes a busy backend's
// counts about once a second, so both ends of a window lag by up to that: the
// difference is a window as long, a little earlier, which under steady load
// reads the same.
func (b *pgBackends) read(ctx context.Context) (pgReading, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, b.dbURL)
	if err != nil {
		return pgReading{}, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, b.app)
	if err != nil {
		return pgReading{}, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return pgReading{}, err
	}
	r := pgReading{cpu: make(map[int]time.Duration, len(pids)), rows: map[string]int64{}}
	for _, pid := range pids {
		if d, err := procCPU(int(pid)); err == nil {
			r.cpu[int(pid)] = d
		}
	}
	if len(r.cpu) == 0 {
		return pgReading{}, fmt.Errorf("no backend of %q readable in /proc (a server on another machine?)", b.app)
	}
	rows, err = conn.Query(ctx, `SELECT relname, COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0)
		FROM pg_stat_user_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return pgReading{}, err
	}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return pgReading{}, err
		}
		r.rows[name] = n
	}
	if err := rows.Err(); err != nil {
		return pgReading{}, err
	}
	r.wal = readWAL(ctx, conn)
	return r, nil
}

// readWAL reads the server's WAL counts; nil when it has none (before
// PostgreSQL 14). A backend adds its WAL to them at most once a second while
// it works, and when it ends.
func readWAL(ctx context.Context, conn *pgx.Conn) *PGWAL {
	var w PGWAL
	if conn.QueryRow(ctx, `SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal`).Scan(&w.Records, &w.FPI, &w.Bytes) != nil {
		return nil
	}
	return &w
}

// begin takes the reading at the start of a window.
func (b *pgBackends) begin(ctx context.Context) {
	b.start, b.startErr = b.read(ctx)
}

// since returns what the backends did since begin: the CPU time they used
// (for backends that were there at begin the difference, for newer ones all
// of it), the rows read by table and the server's WAL (nil when it has no
// count of it). ok is false when either reading failed.
func (b *pgBackends) since(ctx context.Context) (cpu time.Duration, rows map[string]int64, wal *PGWAL, ok bool) {
	end, err := b.read(ctx)
	if err != nil || b.startErr != nil {
		return 0, nil, nil, false
	}
	if end.wal != nil && b.start.wal != nil {
		wal = &PGWAL{Records: end.wal.Records - b.start.wal.Records, FPI: end.wal.FPI - b.start.wal.FPI, Bytes: end.wal.Bytes - b.start.wal.Bytes}
	}
	for pid, t := range end.cpu {
		cpu += t - b.start.cpu[pid]
	}
	for k, v := range end.rows {
		end.rows[k] = v - b.start.rows[k]
	}
	return cpu, end.rows, wal, true
}

// procCPU is a process's user + system CPU time from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	// The command name is in parentheses and may hold spaces: fields count
	// from after its closing one (state is field 3, utime 14, stime 15).
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad CPU times", pid)
	}
	return time.Duration(ut+st) * clockTick, nil
}
