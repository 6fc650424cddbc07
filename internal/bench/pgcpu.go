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

// begin notes the backends' CPU times at the start of a window.
func (b *pgBackends) begin(ctx context.Context) {
	b.start, _ = b.sample(ctx)
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
