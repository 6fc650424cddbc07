package chaos

import (
	"errors"
	"io"
	"time"
)

// Options configure one run.
type Options struct {
	Seed  int64
	Mode  string // "embedded" (one node, SQLite) or "cluster" (three nodes, PostgreSQL, Redis)
	Turns int    // user messages sent in all
	Users int    // simulated users, one browser profile each, running concurrently
	// Kills is the number of SIGKILLs of a server node, spread over the run.
	Kills int
	// Pauses stop a node (SIGSTOP) for longer than its liveness TTL, then let it go on.
	Pauses int
	// RedisRestarts and PGTerminations (cluster) restart the run's redis-server
	// and terminate every database connection of the nodes, spread over the run.
	RedisRestarts  int
	PGTerminations int
	// Actions is the share of turns during which the user also acts on the
	// session: switches the work mode, renames, closes and reopens, forks,
	// deletes, revokes its "Allow for this chat" approvals, switches to plan
	// mode while calls are open, refuses a running server call (0 = never, 1 =
	// every turn). Answering the calls that ask, and what follows an answer,
	// happens whatever this share.
	Actions float64
	// DisconnectEvery is the mean pause between two browser disconnects (half
	// of them drop the connection for a moment, half reload the page).
	DisconnectEvery time.Duration
	// Settle bounds the wait, after the faults stop, for every turn to end and
	// every client to catch up.
	Settle time.Duration
	// ServerCmd starts a server: ServerCmd + "serve" flags (the rtcagent binary).
	ServerCmd []string
	// DatabaseURL (cluster): PostgreSQL; the run uses a schema of its own and
	// drops it at the end.
	DatabaseURL string
	// RedisServer (cluster): the redis-server executable the run starts on a
	// free port.
	RedisServer string
	ExecTimeout time.Duration // RTC execution deadline of the server
	Log         io.Writer     // progress lines and the servers' output; nil = none
}

// Defaults returns the configuration of `rtcagent chaos` without flags.
func Defaults() Options {
	return Options{Seed: 1, Mode: "embedded", Turns: 200, Users: 6, Kills: 20, Pauses: 4, RedisRestarts: 3, PGTerminations: 3,
		Actions: 0.3, DisconnectEvery: 700 * time.Millisecond, Settle: 60 * time.Second, ExecTimeout: 20 * time.Second,
		DatabaseURL: "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", RedisServer: "redis-server"}
}

func (o Options) validate() error {
	switch {
	case o.Mode != "embedded" && o.Mode != "cluster":
		return errors.New("chaos: mode must be embedded or cluster")
	case o.Turns <= 0 || o.Users <= 0 || o.Kills < 0 || o.Pauses < 0 || o.RedisRestarts < 0 || o.PGTerminations < 0:
		return errors.New("chaos: turns and users must be positive, fault counts not negative")
	case o.Actions < 0 || o.Actions > 1:
		return errors.New("chaos: actions is a share of the turns, from 0 to 1")
	case len(o.ServerCmd) == 0:
		return errors.New("chaos: no server command")
	case o.Settle <= 0 || o.ExecTimeout <= 0:
		return errors.New("chaos: settle and exec timeout must be positive")
	}
	return nil
}
