package chaos

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main runs `rtcagent chaos` with args (after "chaos") and returns the exit
// code: 0 when every invariant held, 1 when one broke or the run failed, 2 for
// bad flags.
func Main(args []string, stdout, stderr io.Writer) int {
	o := Defaults()
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Int64Var(&o.Seed, "seed", o.Seed, "seed of the fault schedule and the users' choices")
	fs.StringVar(&o.Mode, "mode", o.Mode, "embedded (one node, SQLite) or cluster (three nodes, PostgreSQL, Redis)")
	fs.IntVar(&o.Turns, "turns", o.Turns, "user messages sent in all")
	fs.IntVar(&o.Users, "users", o.Users, "simulated users running at once")
	fs.IntVar(&o.Kills, "kills", o.Kills, "SIGKILLs of a server node")
	fs.IntVar(&o.Pauses, "pauses", o.Pauses, "pauses of a server node (SIGSTOP) longer than its liveness TTL, then SIGCONT")
	fs.IntVar(&o.RedisRestarts, "redis-restarts", o.RedisRestarts, "restarts of Redis (cluster)")
	fs.IntVar(&o.PGTerminations, "pg-terminations", o.PGTerminations, "terminations of every database connection of the nodes (cluster)")
	fs.Float64Var(&o.Actions, "actions", o.Actions, "share of turns during which the user switches the work mode, renames, closes and reopens, forks or deletes the session, revokes approvals, switches to plan mode or refuses a running server call (0-1)")
	fs.DurationVar(&o.DisconnectEvery, "disconnect-every", o.DisconnectEvery, "mean pause between browser disconnects and reloads (0 = none)")
	fs.DurationVar(&o.Settle, "settle", o.Settle, "wait for turns to end and clients to catch up after the faults")
	fs.DurationVar(&o.ExecTimeout, "exec-timeout", o.ExecTimeout, "RTC execution deadline of the servers")
	fs.StringVar(&o.DatabaseURL, "database-url", o.DatabaseURL, "PostgreSQL for cluster mode (the run uses and drops a schema of its own)")
	fs.StringVar(&o.RedisServer, "redis-server", o.RedisServer, "redis-server executable for cluster mode (started on a free port)")
	verbose := fs.Bool("v", false, "print progress and the servers' output")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "chaos:", err)
		return 1
	}
	o.ServerCmd = []string{exe}
	if *verbose {
		o.Log = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "chaos:", err)
		return 1
	}
	fmt.Fprint(stdout, rep.Table())
	if rep.Failed() {
		return 1
	}
	return 0
}
