package session

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/livebuf"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// stallProxy forwards TCP connections to target until stall is called; from
// then on it holds every byte until the test ends, as a Redis that stopped
// answering does.
type stallProxy struct {
	ln      net.Listener
	mu      sync.Mutex
	stalled chan struct{} // closed when stalled
	done    chan struct{} // closed at the end of the test
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, stalled: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() { close(p.done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go p.pipe(c, up)
			go p.pipe(up, c)
		}
	}()
	return p
}

func (p *stallProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			select {
			case <-p.stalled:
				<-p.done // held: nothing goes through any more
				return
			default:
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *stallProxy) stall() { close(p.stalled) }

// No store transaction waits on Redis: with the partial buffer's Redis
// stalled, a stop of a turn whose streamer died ends it (reading the text it
// can, with a bound), and a rename by the same user meanwhile is not held up by
// the stop's lock on the user's stream. Before, the stop read Redis inside its
// transaction with no deadline and held every write of the user until Redis
// answered: here, never.
func TestStalledRedisHoldsNoTransaction(t *testing.T) {
	url := testsvc.RedisURL(t)
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newStallProxy(t, opt.Addr)
	opt.Addr = proxy.ln.Addr().String()
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1
	opt.ReadTimeout = -1 // only deadlines the caller sets end a wait
	rc := redis.NewClient(opt)
	t.Cleanup(func() { rc.Close() })

	st := openPGStore(t)
	parts := livebuf.NewRedis(rc, "rtcagent-test-"+testsvc.Unique()+":")
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), Partials: parts, PollInterval: time.Hour})
	a := api.New(st, r, protocol.Limits{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	res, msgID := deadStreamer(ctx, t, st, parts, "half a sentence", time.Hour)
	proxy.stall()

	stopped := make(chan error, 1)
	go func() {
		p, _ := json.Marshal(map[string]string{"session_id": res.SessionID})
		_, perr := a.Call(ctx, caller, protocol.MethodTurnStop, p)
		if perr != nil {
			stopped <- perr
			return
		}
		stopped <- nil
	}()
	renamed := make(chan error, 1)
	go func() {
		p, _ := json.Marshal(map[string]any{"session_id": res.SessionID, "title": "renamed while Redis stalls"})
		_, perr := a.Call(ctx, caller, protocol.MethodSessionUpdate, p)
		if perr != nil {
			renamed <- perr
			return
		}
		renamed <- nil
	}()
	for name, ch := range map[string]chan error{"stop": stopped, "rename": renamed} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the %s still waits on the stalled Redis", name)
		}
	}
	var got protocol.MessageGetResult
	call(ctx, t, a, protocol.MethodMessageGet, map[string]string{"message_id": msgID}, &got)
	if got.Message.Status != protocol.MessageInterrupted {
		t.Fatalf("message %s after the stop, want interrupted", got.Message.Status)
	}
}
