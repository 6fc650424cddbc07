package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/centrifugal/centrifuge"
	cgo "github.com/centrifugal/centrifuge-go"
)

// echoFloor measures the crossings of one RTC round trip with nothing on
// either side: a publish reaches a centrifuge-go client, which answers it at
// once with an RPC, timed from the publish to the RPC's arrival on the node.
// With Options.ClientsProcess (and ServeCmd) the client runs in a child
// process (`bench echo`), as the load's clients do, so the figure includes
// what crossing between processes costs on this machine.
func echoFloor(ctx context.Context, o Options, n int) ([]time.Duration, error) {
	node, err := centrifuge.New(centrifuge.Config{LogLevel: centrifuge.LogLevelNone})
	if err != nil {
		return nil, err
	}
	got := make(chan struct{}, 1)
	node.OnConnecting(func(context.Context, centrifuge.ConnectEvent) (centrifuge.ConnectReply, error) {
		return centrifuge.ConnectReply{Credentials: &centrifuge.Credentials{UserID: "floor"},
			Subscriptions: map[string]centrifuge.SubscribeOptions{"floor": {}}}, nil
	})
	node.OnConnect(func(c *centrifuge.Client) {
		c.OnRPC(func(_ centrifuge.RPCEvent, cb centrifuge.RPCCallback) {
			select {
			case got <- struct{}{}:
			default:
			}
			cb(centrifuge.RPCReply{}, nil)
		})
	})
	if err := node.Run(); err != nil {
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = node.Shutdown(sctx)
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: centrifuge.NewWebsocketHandler(node, centrifuge.WebsocketConfig{}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	url := "ws://" + ln.Addr().String() + "/connection/websocket"

	if o.ClientsProcess && len(o.ServeCmd) > 0 {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		in, err := json.Marshal(echoJob{URL: url})
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(cctx, o.ServeCmd[0], append(append([]string(nil), o.ServeCmd[1:]...), "bench", "echo")...)
		cmd.Stderr = os.Stderr
		job, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		// The child answers until its standard input closes: here, or when
		// this process ends however it ends.
		defer func() { job.Close(); _ = cmd.Wait() }()
		if _, err := job.Write(in); err != nil {
			return nil, err
		}
	} else {
		stop, err := echoClient(url)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	data := []byte(`{"type":"floor","data":{"status":"pending"}}`)
	// Publish until an answer comes (the client connects and subscribes in
	// its own time), then let stray answers in before measuring.
	deadline := time.After(30 * time.Second)
	for live := false; !live; {
		if _, err := node.Publish("floor", data); err != nil {
			return nil, err
		}
		select {
		case <-got:
			live = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			return nil, errors.New("the echo client never answered")
		}
	}
	for quiet := false; !quiet; {
		select {
		case <-got:
		case <-time.After(200 * time.Millisecond):
			quiet = true
		}
	}
	out := make([]time.Duration, 0, n)
	for range n + n/10 { // the first tenth warms up and is discarded
		t0 := time.Now()
		if _, err := node.Publish("floor", data); err != nil {
			return nil, err
		}
		select {
		case <-got:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return nil, errors.New("no answer to a floor publication")
		}
		out = append(out, time.Since(t0))
	}
	return out[n/10:], nil
}

// echoJob is what `bench echo` is given on its standard input.
type echoJob struct{ URL string }

// runEcho is `rtcagent bench echo`: the child side of echoFloor. It answers
// publications until its standard input closes.
func runEcho(stdin io.Reader) error {
	var job echoJob
	dec := json.NewDecoder(io.LimitReader(stdin, 1<<20))
	if err := dec.Decode(&job); err != nil {
		return fmt.Errorf("read job: %w", err)
	}
	stop, err := echoClient(job.URL)
	if err != nil {
		return err
	}
	defer stop()
	_, err = io.Copy(io.Discard, io.MultiReader(dec.Buffered(), stdin))
	return err
}

// echoClient connects to url and answers every publication with an RPC, from
// a goroutine of its own as simclient runs a call.
func echoClient(url string) (stop func(), err error) {
	c := cgo.NewJsonClient(url, cgo.Config{})
	pubs := make(chan struct{}, 1024)
	c.OnPublication(func(cgo.ServerPublicationEvent) {
		select {
		case pubs <- struct{}{}:
		default:
		}
	})
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-pubs:
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, _ = c.RPC(ctx, "echo", []byte(`{}`))
				cancel()
			}
		}
	}()
	if err := c.Connect(); err != nil {
		close(done)
		return nil, err
	}
	return func() { close(done); c.Close() }, nil
}
