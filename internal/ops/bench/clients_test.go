package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// childEnv makes this test binary act as `rtcagent bench …` when a test runs
// it as the clients process.
const childEnv = "RTCAGENT_BENCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" && len(os.Args) > 1 && os.Args[1] == "bench" {
		os.Exit(Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// With ClientsProcess the simulated browsers run in a child process: the round
// trips are still counted (by the model, in this process), the child reports its
// turns, and the table shows both processes' CPU.
func TestClientsProcess(t *testing.T) {
	t.Setenv(childEnv, "1")
	o := Options{Sessions: []int{2}, Duration: 2 * time.Second, Warmup: 500 * time.Millisecond, Calls: 2, Tool: "ls", FloorN: 20,
		ServeCmd: []string{os.Args[0]}, ClientsProcess: true}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Points[0]
	if !p.ClientsApart || p.RoundTrips == 0 || p.Turns == 0 || p.Failed != 0 || p.ClientErrors != 0 || p.ServerCPU <= 0 || p.ClientsCPU <= 0 {
		t.Fatalf("point %+v", p)
	}
	// The floor's echo client ran in a child process too.
	if f := res.Floor; !f.EchoApart || f.Echo.N != 20 || f.Echo.P50 <= 0 {
		t.Errorf("floor %+v", f)
	}
	if tab := res.Table(); !strings.Contains(tab, "| 2 | CPU in the window in cores, 2 sessions: server process / clients process |") {
		t.Errorf("table:\n%s", tab)
	}
}

// procCPU reads a process's CPU time from /proc, as the PostgreSQL backends'
// are read; this process's own must match what the kernel reports to it.
func TestProcCPU(t *testing.T) {
	x := 0
	for i := range 50_000_000 { // some CPU time to read
		x ^= i
	}
	_ = x
	got, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	own := ownCPU()
	if got <= 0 || got > own+100*time.Millisecond || got < own-100*time.Millisecond {
		t.Fatalf("procCPU %v, getrusage %v", got, own)
	}
}
