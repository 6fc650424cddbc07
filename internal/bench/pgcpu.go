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
	start      map[int]time.Duration
	rows0      map[string]int64
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

// sample returns the CPU time so far of each of the run's backends.
func (b *pgBackends) sample(ctx context.Context) (map[int]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, b.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, b.app)
	if err != nil {
		return nil, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, err
	}
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		if d, err := procCPU(int(pid)); err == nil {
			out[int(pid)] = d
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no backend of %q readable in /proc (a server on another machine?)", b.app)
	}
	return out, nil
}

// begin notes the backends' CPU times and the rows read at the start of a window.
func (b *pgBackends) begin(ctx context.Context) {
	b.start, _ = b.sample(ctx)
	b.rows0, _ = b.rowsRead(ctx)
}

// rowsRead returns, by table of the run's schema (the search_path of its URL),
// the rows its scans read so far: rows of sequential scans and rows fetched
// through indexes (pg_stat_user_tables). PostgreSQL publishes a busy backend's
// counts about once a second, so both ends of a window lag by up to that: the
// difference is a window as long, a little earlier, which under steady load
// reads the same.
func (b *pgBackends) rowsRead(ctx context.Context) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, b.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT relname, COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0)
		FROM pg_stat_user_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

// rowsSince returns the rows read by table since begin, nil when either
// reading failed.
func (b *pgBackends) rowsSince(ctx context.Context) map[string]int64 {
	end, err := b.rowsRead(ctx)
	if err != nil || b.rows0 == nil {
		return nil
	}
	for k, v := range end {
		end[k] = v - b.rows0[k]
	}
	return end
}

// used returns the CPU time the backends used since begin: for backends that
// were there at begin the difference, for newer ones all of it. ok is false
// when either sample failed.
func (b *pgBackends) used(ctx context.Context) (time.Duration, bool) {
	end, err := b.sample(ctx)
	if err != nil || b.start == nil {
		return 0, false
	}
	var d time.Duration
	for pid, t := range end {
		d += t - b.start[pid]
	}
	return d, true
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
