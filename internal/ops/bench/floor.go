package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/centrifugal/centrifuge"
	cgo "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// measureFloor measures what one RTC round trip cannot go below on this machine:
// a bare publish → receive over a Centrifuge WebSocket (no history, no auth, no
// store) and one durable commit on the run's backend. A round trip holds several
// of each (the RTC publish, two client RPCs, their commits, the resume), so
// ours / (publish + commit) says how many "floor units" one round trip costs.
func measureFloor(ctx context.Context, o Options, sqlitePath string) (Floor, error) {
	pub, err := publishFloor(ctx, o.FloorN)
	if err != nil {
		return Floor{}, fmt.Errorf("publish: %w", err)
	}
	echo, err := echoFloor(ctx, o, o.FloorN)
	if err != nil {
		return Floor{}, fmt.Errorf("echo: %w", err)
	}
	st, err := openStore(ctx, o, sqlitePath)
	if err != nil {
		return Floor{}, err
	}
	defer st.Close()
	user := fmt.Sprintf("bench-floor-%d", time.Now().UnixNano())
	commit := func(i int) error {
		return st.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateAppend(user, "bench.floor", map[string]int{"i": i})
			return err
		})
	}
	// A first, unmeasured commit prepares the statements and starts the
	// user's stream.
	if err := commit(-1); err != nil {
		return Floor{}, fmt.Errorf("commit: %w", err)
	}
	commits := make([]time.Duration, 0, o.FloorN)
	sq, _ := st.(*sqlitestore.Store)
	var before sqlitestore.Counts
	if sq != nil {
		before = sq.Counts()
	}
	for i := range o.FloorN {
		t0 := time.Now()
		if err := commit(i); err != nil {
			return Floor{}, fmt.Errorf("commit: %w", err)
		}
		commits = append(commits, time.Since(t0))
	}
	f := Floor{Publish: pcts(pub), Echo: pcts(echo), EchoApart: o.clientsApart(), Commit: pcts(commits)}
	if sq != nil {
		f.SQLite = sqliteFloorOf(sq.Counts().Sub(before))
	}
	if o.DBURL != "" {
		// About as long as the samples above take; a second a kind at most.
		d := min(max(time.Duration(o.FloorN)*500*time.Microsecond, 100*time.Millisecond), time.Second)
		if f.PG, err = measurePGFloor(ctx, o.DBURL, d); err != nil {
			return Floor{}, fmt.Errorf("PostgreSQL CPU: %w", err)
		}
	}
	return f, nil
}

// SQLiteFloor is what each of the floor's commits cost the SQLite writer, on
// average: what a bare one-row commit costs here.
type SQLiteFloor struct {
	Held  time.Duration // BEGIN to the end of COMMIT
	Pages float64       // WAL frames
}

func sqliteFloorOf(c sqlitestore.Counts) SQLiteFloor {
	if c.Commits == 0 {
		return SQLiteFloor{}
	}
	return SQLiteFloor{Held: time.Duration(c.Held / c.Commits), Pages: float64(c.Pages) / float64(c.Commits)}
}

// openStore opens the backend the server of the run uses, the same way
// internal/server does (search_path in the URL names the schema).
func openStore(ctx context.Context, o Options, sqlitePath string) (store.Store, error) {
	if o.DBURL == "" {
		return sqlitestore.Open(ctx, sqlitePath, sqlitestore.Options{})
	}
	u, err := url.Parse(o.DBURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return pgstore.Open(ctx, u.String(), pgstore.Options{Schema: schema})
}

// publishFloor runs n sequential publishes on a minimal node (in-memory broker)
// to one centrifuge-go client subscribed server-side, as our clients are.
func publishFloor(ctx context.Context, n int) ([]time.Duration, error) {
	fn, err := startFloorNode(nil)
	if err != nil {
		return nil, err
	}
	defer fn.stop()
	connected := make(chan struct{}, 1)
	c := cgo.NewJsonClient(fn.url, cgo.Config{})
	c.OnConnected(func(cgo.ConnectedEvent) { connected <- struct{}{} })
	c.OnPublication(func(cgo.ServerPublicationEvent) { fn.arrived() })
	if err := c.Connect(); err != nil {
		return nil, err
	}
	defer c.Close()
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		return nil, errors.New("floor client did not connect")
	}
	return fn.measure(ctx, n)
}

// floorNode is a minimal Centrifuge node (in-memory broker) on a loopback
// listener whose one client is subscribed server-side to "floor", as our
// clients are to their channels; got hears what a measurement waits for.
type floorNode struct {
	node *centrifuge.Node
	url  string
	got  chan struct{}
	stop func()
}

// startFloorNode starts a floor node; onConnect, if set, sees each client
// that connects.
func startFloorNode(onConnect func(fn *floorNode, c *centrifuge.Client)) (*floorNode, error) {
	node, err := centrifuge.New(centrifuge.Config{LogLevel: centrifuge.LogLevelNone})
	if err != nil {
		return nil, err
	}
	fn := &floorNode{node: node, got: make(chan struct{}, 1)}
	node.OnConnecting(func(context.Context, centrifuge.ConnectEvent) (centrifuge.ConnectReply, error) {
		return centrifuge.ConnectReply{Credentials: &centrifuge.Credentials{UserID: "floor"},
			Subscriptions: map[string]centrifuge.SubscribeOptions{"floor": {}}}, nil
	})
	node.OnConnect(func(c *centrifuge.Client) {
		if onConnect != nil {
			onConnect(fn, c)
		}
	})
	if err := node.Run(); err != nil {
		return nil, err
	}
	shutdown := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = node.Shutdown(sctx)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		shutdown()
		return nil, err
	}
	hs := &http.Server{Handler: centrifuge.NewWebsocketHandler(node, centrifuge.WebsocketConfig{}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fn.url = "ws://" + ln.Addr().String() + "/connection/websocket"
	fn.stop = func() { hs.Close(); shutdown() }
	return fn, nil
}

// arrived tells a waiting measurement that what it waits for came.
func (fn *floorNode) arrived() {
	select {
	case fn.got <- struct{}{}:
	default:
	}
}

// measure publishes on "floor" n times in sequence and times each from the
// publish to what got hears. It first publishes until something arrives
// (a client connects and subscribes in its own time), then lets stray
// arrivals in, and discards a first tenth of the samples as a warm-up.
func (fn *floorNode) measure(ctx context.Context, n int) ([]time.Duration, error) {
	data := []byte(`{"type":"floor","data":{"status":"pending"}}`)
	deadline := time.After(30 * time.Second)
	for live := false; !live; {
		if _, err := fn.node.Publish("floor", data); err != nil {
			return nil, err
		}
		select {
		case <-fn.got:
			live = true
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			return nil, errors.New("nothing came back from the floor's client")
		}
	}
	for quiet := false; !quiet; {
		select {
		case <-fn.got:
		case <-time.After(200 * time.Millisecond):
			quiet = true
		}
	}
	out := make([]time.Duration, 0, n)
	for range n + n/10 {
		t0 := time.Now()
		if _, err := fn.node.Publish("floor", data); err != nil {
			return nil, err
		}
		select {
		case <-fn.got:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return nil, errors.New("a floor publication went unanswered")
		}
		out = append(out, time.Since(t0))
	}
	return out[n/10:], nil
}
