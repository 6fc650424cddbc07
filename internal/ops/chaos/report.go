package chaos

import (
	"fmt"
	"strings"
	"time"
)

// Report is what a run did and what it found. The fields after Turns up to
// RedisRestarts count actions; the invariant fields must all be zero.
type Report struct {
	Mode     string
	Seed     int64
	Users    int
	Nodes    int
	Duration time.Duration

	Turns          int // turns the server holds at the end
	Completed      int
	FailedTurns    int
	Stopped        int
	Kills          int
	KillsAt        map[string]int
	Pauses         int
	RedisRestarts  int
	PGTerminations int
	PGBackends     int // connections those terminations ended
	StartRetries   int // node starts that exited and were started again
	Disconnects    int
	Reloads        int
	Stops          int
	ModeChanges    int // work mode switched while a turn ran
	Renames        int
	CloseReopens   int // closed while a turn ran, then opened again
	Deletes        int
	Forks          int // forks asked three times (twice at once) with one client_id
	PlanSwitches   int // switches to plan mode once a call of the turn was open (also in ModeChanges)
	Confirms       int // calls that asked, allowed by the person
	AllowedForChat int // of those, allowed for the whole chat
	Declines       int // calls that asked, refused by the person
	Revokes        int // "Allow for this chat" approvals revoked while a turn ran
	RefuseRunning  int // refusals of a running server call, answered conflict as they must be
	DupSends       int // messages sent twice at once with the same client_id
	DupSubmits     int // extra result submissions racing the browser's own
	Executions     int
	ServerCalls    int // server calls (MCP tools) started, from the history
	AskedAgain     int // calls planned to run unasked that asked when delivered or started (a revoke, a stricter mode)
	PlanRefused    int // calls planned to run that plan mode refused when delivered or started
	Updates        int // offsets checked

	// Invariants.
	Lost           int // offsets missing from the history or never applied by the client
	DupOffsets     int // offsets seen with two different updates
	Stuck          int // turns not terminal after the settle time
	ExecTwice      int // RTCs a browser profile executed more than once
	DeliverTwice   int // RTCs delivered as pending more than once
	StateDiffs     int // entities whose client state differs from the server's
	DupDiffer      int // duplicate sends or submissions answered unlike the stored result
	ClientErrors   int // protocol violations and failed retries seen by clients
	Wedged         int // sessions with a queued turn and none active after the settle time
	Reappeared     int // deleted sessions that came back (in the history or the list)
	TwoActive      int // sessions that had two turns running or waiting at once
	StreamingEnded int // messages still streaming in an ended turn after the settle time
	ForkDiffer     int // repeated forks answered unlike the first, or sessions left empty
	RanForbidden   int // calls that ran though a decision committed before their delivery (start) forbade it
	RefusedRunning int // running server calls whose refusal was accepted or recorded
	FailedDetails  []string
}

// Failed reports whether any invariant broke.
func (r *Report) Failed() bool {
	for _, inv := range r.invariants() {
		if inv.count > 0 {
			return true
		}
	}
	return false
}

// invariant is a count that must be zero, with its name in the table.
type invariant struct {
	name  string
	count int
}

func (r *Report) invariants() []invariant {
	return []invariant{
		{"updates lost", r.Lost},
		{"duplicate offsets", r.DupOffsets},
		{"stuck turns", r.Stuck},
		{"RTCs executed twice by a client", r.ExecTwice},
		{"RTCs delivered twice", r.DeliverTwice},
		{"client state different from server state", r.StateDiffs},
		{"duplicate answers differing from the stored result", r.DupDiffer},
		{"client protocol errors", r.ClientErrors},
		{"wedged sessions (a queued turn, none active)", r.Wedged},
		{"deleted sessions that reappeared", r.Reappeared},
		{"sessions with two active turns at once", r.TwoActive},
		{"messages streaming in an ended turn", r.StreamingEnded},
		{"repeated forks answered differently, or empty sessions", r.ForkDiffer},
		{"calls run after the decision that forbade them (revoke, plan mode)", r.RanForbidden},
		{"running server calls refused (the refusal accepted or recorded)", r.RefusedRunning},
	}
}

// Table renders the report as a Markdown table.
func (r *Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rtcagent chaos: mode %s, seed %d, %d node(s), %d users, %s\n\n", r.Mode, r.Seed, r.Nodes, r.Users, r.Duration.Round(time.Second))
	b.WriteString("| | count | must be |\n|---|---:|---:|\n")
	row := func(name string, v any, must string) { fmt.Fprintf(&b, "| %s | %v | %s |\n", name, v, must) }
	row("turns run (completed / failed / stopped)", fmt.Sprintf("%d (%d / %d / %d)", r.Turns, r.Completed, r.FailedTurns, r.Stopped), "")
	row("server kills (streaming / RTC executing / submitting / elsewhere)", fmt.Sprintf("%d (%d / %d / %d / %d)", r.Kills,
		r.KillsAt[pointStreaming], r.KillsAt[pointExecuting], r.KillsAt[pointSubmitting], r.KillsAt[pointAny]), "")
	row("node pauses longer than the node TTL (SIGSTOP, SIGCONT)", r.Pauses, "")
	if r.Mode == "cluster" {
		row("Redis restarts", r.RedisRestarts, "")
		row("PostgreSQL connection terminations (connections ended)", fmt.Sprintf("%d (%d)", r.PGTerminations, r.PGBackends), "")
		row("node starts that exited and were repeated", r.StartRetries, "")
	}
	row("disconnects (dropped / page reloads)", fmt.Sprintf("%d (%d / %d)", r.Disconnects+r.Reloads, r.Disconnects, r.Reloads), "")
	row("turns stopped by the user", r.Stops, "")
	row("during turns: work mode / rename / close and reopen / delete / fork", fmt.Sprintf("%d / %d / %d / %d / %d",
		r.ModeChanges, r.Renames, r.CloseReopens, r.Deletes, r.Forks), "")
	row("calls that asked: allowed (for this chat) / declined", fmt.Sprintf("%d (%d) / %d", r.Confirms, r.AllowedForChat, r.Declines), "")
	row("during turns: approvals revoked / plan mode with calls open / refusals of running server calls (conflict)",
		fmt.Sprintf("%d / %d / %d", r.Revokes, r.PlanSwitches, r.RefuseRunning), "")
	row("calls decided again by the server: asked after all / refused by plan mode", fmt.Sprintf("%d / %d", r.AskedAgain, r.PlanRefused), "")
	row("duplicate message sends (same client_id, concurrent)", r.DupSends, "")
	row("extra result submissions (same and other client_id)", r.DupSubmits, "")
	row("tool executions (browser) / server calls started", fmt.Sprintf("%d / %d", r.Executions, r.ServerCalls), "")
	row("updates checked", r.Updates, "")
	for _, inv := range r.invariants() {
		row("**"+inv.name+"**", inv.count, "0")
	}
	if r.Failed() {
		b.WriteString("\nFAILED\n")
		for i, d := range r.FailedDetails {
			if i == 20 {
				fmt.Fprintf(&b, "… %d more\n", len(r.FailedDetails)-20)
				break
			}
			b.WriteString("- " + d + "\n")
		}
	} else {
		b.WriteString("\nall invariants hold\n")
	}
	return b.String()
}

func (h *harness) count(f func(*Report)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.report.KillsAt == nil {
		h.report.KillsAt = map[string]int{}
	}
	f(&h.report)
}

// breach records one broken invariant with what was seen.
func (h *harness) breach(f func(*Report), format string, args ...any) {
	h.count(func(r *Report) {
		f(r)
		r.FailedDetails = append(r.FailedDetails, fmt.Sprintf(format, args...))
	})
}
