package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	fn, err := startFloorNode(func(fn *floorNode, c *centrifuge.Client) {
		c.OnRPC(func(_ centrifuge.RPCEvent, cb centrifuge.RPCCallback) {
			fn.arrived()
			cb(centrifuge.RPCReply{}, nil)
		})
	})
	if err != nil {
		return nil, err
	}
	defer fn.stop()
	if o.clientsApart() {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		in, err := json.Marshal(echoJob{URL: fn.url})
		if err != nil {
			return nil, err
		}
		cmd := o.benchChild(cctx, "echo")
		job, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		// The child answers until its standard input closes: here, or when
		// this process ends however it ends.
		defer func() {
			job.Close()
			kill := time.AfterFunc(5*time.Second, cancel) // it did not end on its own
			_ = cmd.Wait()
			kill.Stop()
		}()
		if _, err := job.Write(in); err != nil {
			return nil, err
		}
	} else {
		stop, err := echoClient(fn.url)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	return fn.measure(ctx, n)
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

// echoClient connects to url and answers every publication with an RPC,
// sent from a goroutine of its own as a simulated browser sends a result: an
// RPC waits for its answer, which centrifuge-go delivers through the same
// queue as the publication callbacks.
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
