package auditexport

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Formats.
const (
	JSONL = "jsonl"
	CSV   = "csv"
)

// Query selects the records to export.
type Query struct {
	UserID    string
	SessionID string
	Since     time.Time
}

// pageSize is how many records one read transaction takes.
const pageSize = 500

// Export writes the matching records in creation order in the given format and
// returns how many it wrote.
func Export(ctx context.Context, st store.Store, q Query, format string, w io.Writer) (int, error) {
	var write func(a *protocol.AuditRecord) error
	var flush func() error
	switch format {
	case JSONL:
		enc := json.NewEncoder(w)
		write = func(a *protocol.AuditRecord) error { return enc.Encode(a) }
		flush = func() error { return nil }
	case CSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(Columns); err != nil {
			return 0, err
		}
		write = func(a *protocol.AuditRecord) error { return cw.Write(inertRow(row(a))) }
		flush = func() error { cw.Flush(); return cw.Error() }
	default:
		return 0, fmt.Errorf("format %q: jsonl or csv", format)
	}
	n, after := 0, ""
	for {
		var page []protocol.AuditRecord
		err := st.Read(ctx, func(tx store.Tx) error {
			var err error
			page, err = readPage(tx, q, after)
			return err
		})
		if err != nil {
			return n, err
		}
		for i := range page {
			if err := write(&page[i]); err != nil {
				return n, err
			}
			n++
		}
		if len(page) < pageSize {
			return n, flush()
		}
		after = page[len(page)-1].RTCID
	}
}

// readPage reads the page of matching records that follows the record of the
// RTC after ("": the first page).
func readPage(tx store.Audit, q Query, after string) ([]protocol.AuditRecord, error) {
	return tx.AuditList(store.AuditQuery{UserID: q.UserID, SessionID: q.SessionID, Since: q.Since, AfterRTC: after, Limit: pageSize})
}

// Columns are the CSV header. Arguments, output and the execution report are
// JSON text in their cells.
var Columns = []string{"rtc_id", "created_at", "user_id", "session_id", "turn_id", "device_id", "tool_name", "tool_call_id",
	"arguments", "work_mode", "needs_confirmation", "decision", "decided_by", "decision_device_id", "decided_at", "reason", "scope",
	"standing", "status", "output", "error", "delivered_at", "started_at", "ended_at", "execution", "trace_id"}

func row(a *protocol.AuditRecord) []string {
	ts := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	js := func(v any) string {
		switch x := v.(type) {
		case json.RawMessage:
			return string(x)
		case *protocol.RTCExecution:
			if x == nil {
				return ""
			}
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	d := a.Decision
	created := a.CreatedAt
	return []string{a.RTCID, ts(&created), a.UserID, a.SessionID, a.TurnID, a.DeviceID, a.ToolName, a.ToolCallID,
		js(a.Arguments), a.WorkMode, strconv.FormatBool(a.NeedsConfirmation), d.Outcome, d.By, d.DeviceID, ts(d.At), d.Reason, d.Scope,
		strconv.FormatBool(d.Standing), a.Status, js(a.Output), a.Error, ts(a.DeliveredAt), ts(a.StartedAt), ts(a.EndedAt),
		js(a.Execution), a.TraceID}
}

// inertRow keeps a spreadsheet from reading any cell as a formula (OWASP's CSV
// injection guidance): a cell that starts with =, +, -, @, a tab or a carriage
// return gets a leading single quote. Denial reasons, errors and tool names come
// from people, models and tool servers, so every cell is treated alike.
func inertRow(cells []string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}

// Main is `rtcagent audit export`.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "export" {
		fmt.Fprintln(stderr, "usage: rtcagent audit export [-since 24h|2026-01-02T15:04:05Z] [-user U] [-session S] [-format jsonl|csv] [-database-url URL | -data FILE]")
		return 2
	}
	fs := flag.NewFlagSet("audit export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	since := fs.String("since", "", "records of calls created since: a duration back from now (24h) or an RFC 3339 time; empty = all")
	user := fs.String("user", "", "only this user's records")
	session := fs.String("session", "", "only this session's records")
	format := fs.String("format", JSONL, "jsonl or csv")
	cfg := config.Default()
	fs.StringVar(&cfg.DBURL, "database-url", "", "PostgreSQL URL of the store; empty = the SQLite file")
	fs.StringVar(&cfg.DataFile, "data", cfg.DataFile, "SQLite database file")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	q := Query{UserID: *user, SessionID: *session}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintln(stderr, "audit export:", err)
			return 2
		}
		q.Since = t
	}
	if *format != JSONL && *format != CSV {
		fmt.Fprintf(stderr, "audit export: format %q: jsonl or csv\n", *format)
		return 2
	}
	ctx := context.Background()
	st, err := server.OpenStore(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintln(stderr, "audit export: open the store:", err)
		return 1
	}
	defer st.Close()
	if _, err := Export(ctx, st, q, *format, stdout); err != nil {
		fmt.Fprintln(stderr, "audit export:", err)
		return 1
	}
	return 0
}

// parseSince reads -since: a duration back from now, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("since %q: a duration back from now is positive", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("since %q: a duration (24h) or an RFC 3339 time", s)
	}
	return t, nil
}
