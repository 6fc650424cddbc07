package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
)

// Main runs `rtcagent bench` with args (after "bench") and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "node" { // a node of -nodes
		if err := runNode(args[1:], stderr); err != nil {
			fmt.Fprintln(stderr, "bench node:", err)
			return 1
		}
		return 0
	}
	if len(args) == 1 && args[0] == "clients" { // the child of -clients-process
		if err := runClients(os.Stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "bench clients:", err)
			return 1
		}
		return 0
	}
	if len(args) == 1 && args[0] == "echo" { // the echo client of the floor's round trip
		if err := runEcho(os.Stdin); err != nil {
			fmt.Fprintln(stderr, "bench echo:", err)
			return 1
		}
		return 0
	}
	o := Defaults()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sessions := fs.String("sessions", "1,100,1000", "concurrency points: concurrent sessions, one client each")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "measured window per point")
	fs.IntVar(&o.Calls, "calls", o.Calls, "tool calls per turn")
	fs.StringVar(&o.Tool, "tool", o.Tool, "the tool every call names: ls (read-only, no executing report) or write (executing reported first)")
	fs.IntVar(&o.Idle, "idle", o.Idle, "idle connections for the memory row (0 skips it)")
	fs.DurationVar(&o.Warmup, "warmup", o.Warmup, "unmeasured load before each point's window")
	history := fs.String("history", "10,100,500", "conversation sizes (messages) of the transcript-growth row; empty or 0 skips it")
	fs.IntVar(&o.FloorN, "floor-samples", o.FloorN, "samples of each floor measurement")
	fs.StringVar(&o.DBURL, "database-url", "", "postgres://… to measure the PostgreSQL store (each run uses a new schema, dropped at the end)")
	fs.StringVar(&o.RedisURL, "redis-url", "", "redis://… to measure the Redis broker and Live buffer")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (server and clients) to this file")
	memprofile := fs.String("memprofile", "", "write the heap profile of this process at the end of the run to this file (its alloc_objects and alloc_space samples are what the run allocated)")
	inproc := fs.Bool("idle-in-process", false, "measure idle memory in this process instead of a child server")
	fs.BoolVar(&o.ClientsProcess, "clients-process", false, "run the simulated browsers in a child process, so the CPU row shows the server's alone")
	nodes := fs.String("nodes", "", "node counts, e.g. 1,3: run the load on that many server child processes (PostgreSQL + Redis only), -sessions browsers per node")
	fs.DurationVar(&o.NodePoll, "node-poll-interval", 0, "with -nodes: the nodes' -poll-interval (0: the server's default)")
	fs.BoolVar(&o.Handoffs, "handoffs", false, "trace each point's window with the Go runtime's tracer and count a round trip's hand-offs between goroutines, by who made them (slows the run: its times, goroutines started and thread sleeps are not comparable)")
	fs.StringVar(&o.NodeProfile, "node-cpuprofile", "", "with -nodes: the first node of each count writes a CPU profile of its process to <file>.<k>nodes")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *nodes != "" {
		for _, s := range strings.Split(*nodes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n <= 0 {
				fmt.Fprintf(stderr, "bench: bad -nodes %q\n", *nodes)
				return 2
			}
			o.Nodes = append(o.Nodes, n)
		}
		if o.DBURL == "" || o.RedisURL == "" {
			fmt.Fprintln(stderr, "bench: -nodes needs PostgreSQL and Redis: give -database-url and -redis-url")
			return 2
		}
		if o.Handoffs {
			fmt.Fprintln(stderr, "bench: -handoffs traces a server in this process, not -nodes")
			return 2
		}
	}
	o.Sessions = nil
	for _, s := range strings.Split(*sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "bench: bad -sessions %q\n", *sessions)
			return 2
		}
		o.Sessions = append(o.Sessions, n)
	}
	o.History = nil
	for _, s := range strings.Split(*history, ",") {
		if s = strings.TrimSpace(s); s == "" || s == "0" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			fmt.Fprintf(stderr, "bench: bad -history %q\n", *history)
			return 2
		}
		o.History = append(o.History, n)
	}
	if !*inproc {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		o.ServeCmd = []string{exe}
	}
	o.Log = stderr
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		defer func() {
			runtime.GC() // the profile is as of the last collection
			f, err := os.Create(*memprofile)
			if err == nil {
				err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
			}
			if err != nil {
				fmt.Fprintln(stderr, "bench: memory profile:", err)
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if len(o.Nodes) > 0 {
		res, err := RunCluster(ctx, o)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		fmt.Fprint(stdout, res.Table())
		return 0
	}
	res, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	fmt.Fprint(stdout, res.Table())
	return 0
}
