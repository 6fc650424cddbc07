package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cgo "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/realtime"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

var testSecret = []byte("realtime-test-secret-0123456789")

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// openStore opens a SQLite store in the test's directory; the same dir reopens it.
func openStore(t *testing.T, dir string) store.Store {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dir, "rt.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// startNode runs a realtime node over st whose commit hook feeds the relay. Its
// clients recover up to 10,000 missed updates on reconnect (a browser refills
// beyond the production limit with v1.update.list) and check their position
// every half second.
func startNode(t *testing.T, st store.Store, redisURL, prefix string) *realtime.Node {
	t.Helper()
	v, err := auth.NewVerifier(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	log := quietLog()
	n, err := realtime.New(context.Background(), realtime.Config{Store: st, Verifier: v, Logger: log,
		API: api.New(st, nil, protocol.Limits{}.WithDefaults(), log), PositionCheck: 500 * time.Millisecond, RecoveryLimit: 10000,
		MaxRequestBytes: 64 << 10, RedisURL: redisURL, RedisPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	st.SetCommitHook(n.OnCommit)
	if err := n.Run(); err != nil {
		t.Fatal(err)
	}
	return n
}

// startLocalNode runs a node without Redis over a new SQLite store, serves its
// WebSocket endpoint and returns the store and the endpoint's URL. The test's
// cleanup closes the server, shuts the node down and closes the store.
func startLocalNode(t *testing.T) (store.Store, string) {
	t.Helper()
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { st.Close() })
	node := startNode(t, st, "", "")
	t.Cleanup(func() { shutdown(node, 5*time.Second) })
	return st, serve(t, node.WebSocketHandler())
}

// swapHandler serves whichever node is current, so a client reconnects to the
// same URL across a node restart.
type swapHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swapHandler) set(h http.Handler) { s.h.Store(&h) }
func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/connection/websocket"
}

// client is a centrifuge-go client recording the Topic offsets it receives.
type client struct {
	c    *cgo.Client
	mu   sync.Mutex
	offs []uint64
	errs []string
	log  []string // connection events, shown when a wait fails
	got  chan struct{}
}

func (cl *client) event(format string, args ...any) {
	cl.mu.Lock()
	cl.log = append(cl.log, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
	cl.mu.Unlock()
}

func dial(t *testing.T, url, user string) *client {
	t.Helper()
	v, _ := auth.NewVerifier(testSecret)
	tok, _, err := v.Issue(user, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cl := &client{got: make(chan struct{}, 1)}
	cl.c = cgo.NewJsonClient(url, cgo.Config{Token: tok, Data: []byte(`{"device_id":"d1"}`),
		MinReconnectDelay: 20 * time.Millisecond, MaxReconnectDelay: 300 * time.Millisecond, HandshakeTimeout: 10 * time.Second})
	connected := make(chan struct{}, 1)
	cl.c.OnConnected(func(cgo.ConnectedEvent) {
		cl.event("connected")
		select {
		case connected <- struct{}{}:
		default:
		}
	})
	cl.c.OnDisconnected(func(e cgo.DisconnectedEvent) { cl.event("disconnected %d %s", e.Code, e.Reason) })
	cl.c.OnError(func(e cgo.ErrorEvent) { cl.event("error %v", e.Error) })
	cl.c.OnSubscribed(func(e cgo.ServerSubscribedEvent) {
		cl.event("subscribed %s recovered %v", e.Channel, e.Recovered)
	})
	cl.c.OnUnsubscribed(func(e cgo.ServerUnsubscribedEvent) { cl.event("unsubscribed %s", e.Channel) })
	cl.c.OnPublication(func(e cgo.ServerPublicationEvent) {
		if e.Channel != realtime.TopicChannel(user) {
			return
		}
		var u protocol.Update
		cl.mu.Lock()
		if err := json.Unmarshal(e.Data, &u); err != nil || uint64(u.Offset) != e.Offset {
			cl.errs = append(cl.errs, "publication offset does not match its update")
		}
		cl.offs = append(cl.offs, e.Offset)
		cl.mu.Unlock()
		select {
		case cl.got <- struct{}{}:
		default:
		}
	})
	if err := cl.c.Connect(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.c.Close)
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("client did not connect")
	}
	return cl
}

// waitInOrder waits until the client received offsets first..last, each once and
// in order.
func (cl *client) waitInOrder(t *testing.T, first, last uint64, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		cl.mu.Lock()
		offs := append([]uint64(nil), cl.offs...)
		errs := cl.errs
		cl.mu.Unlock()
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		for i, o := range offs {
			if o != first+uint64(i) {
				t.Fatalf("client got offset %d at position %d, want %d (got %v…)", o, i, first+uint64(i), head(offs))
			}
		}
		if len(offs) > 0 && offs[len(offs)-1] == last {
			return
		}
		select {
		case <-cl.got:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			cl.mu.Lock()
			events := strings.Join(cl.log, "\n")
			cl.mu.Unlock()
			t.Fatalf("client got %d updates (up to %v), want %d..%d; events:\n%s", len(offs), tail(offs), first, last, events)
		}
	}
}

func head(o []uint64) []uint64 { return o[:min(len(o), 20)] }
func tail(o []uint64) []uint64 { return o[max(0, len(o)-3):] }

// appendUpdates commits n updates for the user, one transaction each.
func appendUpdates(t *testing.T, st store.Store, user string, n int) {
	t.Helper()
	for i := range n {
		err := st.Write(context.Background(), func(tx store.Tx) error {
			_, err := tx.UpdateAppend(user, "test.note", map[string]int{"i": i})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// redisProxy forwards TCP to Redis until cut: then it drops every connection and
// refuses new ones, as a Redis that went away.
type redisProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]bool
}

func newRedisProxy(t *testing.T, target string) *redisProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &redisProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	return p
}

func (p *redisProxy) url() string { return "redis://" + p.ln.Addr().String() + "/0" }

func (p *redisProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[up] = true, true
		p.mu.Unlock()
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *redisProxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *redisProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
		}
	}
}
