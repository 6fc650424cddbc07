package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	centrifuge "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/cancels"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Options configure a Client.
type Options struct {
	// URL of the server's WebSocket endpoint, ws://host/connection/websocket.
	URL string
	// Token is the connection JWT. With TokenFunc it may be empty.
	Token string
	// TokenFunc returns a fresh token: for the first connection when Token is
	// empty, before the token expires, and after the server refused it.
	TokenFunc func(ctx context.Context) (string, error)
	// DeviceID identifies this client as a device of the user (1-128 of
	// A-Z a-z 0-9 . _ : -). Sessions belong to the device that created them;
	// keep it stable across restarts, or the journal and the sessions are not
	// found again.
	DeviceID string
	// JournalDir holds the execution journal (journal-<DeviceID>.jsonl). Empty
	// keeps it in memory: at most once then holds only within the process.
	JournalDir string
	// WorkMode is sent with every message (manual, edit, plan, bypass); empty
	// leaves the session's mode (a new session starts in edit).
	WorkMode string
	// Confirm is asked before a call that needs a person's approval runs (work
	// modes manual and edit). It returns whether to run it and, when not, a
	// reason for the model. Nil rejects such calls.
	Confirm func(ctx context.Context, call Call) (approve bool, reason string)
	// Logger receives what the client cannot return (failed submissions it
	// retries, protocol problems). Nil discards it.
	Logger *slog.Logger
}

// Error is an error answer of the server, with its stable code (docs/protocol.md).
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Client is one device of a user. Safe for concurrent use.
type Client struct {
	opts Options
	log  *slog.Logger
	cc   *centrifuge.Client
	j    *journal

	mu       sync.Mutex
	tools    map[string]Tool
	order    []string
	sessions map[string]protocol.Session
	status   map[string]string // rtc id → latest status seen
	running  cancels.Set       // rtc id → cancel of the tool running it or the confirmation asking

	runOnce sync.Once
	done    chan struct{} // closed when Run ends

	topic    topic
	disp     *dispatcher
	execQ    *queue[protocol.RTC]
	outKick  chan struct{}
	syncReq  chan struct{}
	refetch  chan struct{}
	firstCon chan struct{}
	conOnce  sync.Once
}

// New checks the options and opens the journal. It does not connect: Run does.
func New(o Options) (*Client, error) {
	if o.URL == "" {
		return nil, errors.New("client: URL is required")
	}
	if o.Token == "" && o.TokenFunc == nil {
		return nil, errors.New("client: Token or TokenFunc is required")
	}
	if err := protocol.ValidDeviceID(o.DeviceID); err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if o.WorkMode != "" && !protocol.ValidWorkMode(o.WorkMode) {
		return nil, fmt.Errorf("client: unknown work mode %q", o.WorkMode)
	}
	j, err := openJournal(o.JournalDir, o.DeviceID)
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{opts: o, log: log, j: j, tools: map[string]Tool{}, sessions: map[string]protocol.Session{},
		status: map[string]string{}, done: make(chan struct{}),
		execQ: newQueue[protocol.RTC](), outKick: make(chan struct{}, 1), syncReq: make(chan struct{}, 1),
		refetch: make(chan struct{}, 1), firstCon: make(chan struct{})}
	c.disp = newDispatcher()
	data, _ := json.Marshal(map[string]string{"device_id": o.DeviceID})
	cfg := centrifuge.Config{Token: o.Token, Data: data, Name: "rtcagent-go", HandshakeTimeout: 10 * time.Second,
		MinReconnectDelay: 100 * time.Millisecond, MaxReconnectDelay: 10 * time.Second}
	if o.TokenFunc != nil {
		cfg.GetToken = func(centrifuge.ConnectionTokenEvent) (string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return o.TokenFunc(ctx)
		}
	}
	c.cc = centrifuge.NewJsonClient(o.URL, cfg)
	c.cc.OnConnected(func(centrifuge.ConnectedEvent) { c.conOnce.Do(func() { close(c.firstCon) }); kick(c.outKick) })
	c.cc.OnPublication(c.onPublication)
	c.cc.OnSubscribed(c.onSubscribed)
	c.cc.OnError(func(e centrifuge.ErrorEvent) { c.log.Debug("rtcagent client", "error", e.Error) })
	return c, nil
}

// Run connects, executes this device's calls and delivers results until ctx
// ends; then it disconnects and closes the journal. Call it once.
func (c *Client) Run(ctx context.Context) error {
	first := false
	c.runOnce.Do(func() { first = true })
	if !first {
		return errors.New("client: Run was called twice")
	}
	defer c.j.close()
	defer close(c.done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A call started in an earlier life of this device without a result may
	// have had its effects: report it, never run it again.
	for _, id := range c.j.unfinished() {
		e, _ := c.j.get(id)
		if _, err := c.j.finish(id, e.Session, e.Tool, outcome{ClientID: "res-" + id, Error: interrupted}); err != nil {
			return err
		}
	}
	if err := c.cc.Connect(); err != nil {
		return fmt.Errorf("client: connect: %w", err)
	}
	defer c.cc.Close()
	var wg sync.WaitGroup
	for _, loop := range []func(context.Context){c.execLoop, c.outboxLoop, c.syncLoop, c.disp.loop} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			loop(ctx)
		}()
	}
	<-ctx.Done()
	c.running.CancelAll()
	wg.Wait()
	return nil
}

// WaitConnected waits until the first connection succeeded.
func (c *Client) WaitConnected(ctx context.Context) error {
	select {
	case <-c.firstCon:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return errClosed
	}
}

var errClosed = errors.New("client: closed")

func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Call runs one method of the protocol (v1.…): params are marshalled to JSON,
// the result is unmarshalled into out when it is not nil. Server errors come
// back as *Error.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	res, err := c.cc.RPC(ctx, method, data)
	if err != nil {
		var ce *centrifuge.Error
		if errors.As(err, &ce) {
			return &Error{Code: protocol.CodeFromRPC(ce.Code), Message: ce.Message}
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	if out != nil {
		return json.Unmarshal(res.Data, out)
	}
	return nil
}

// attemptTimeout bounds one attempt of a retried call.
const attemptTimeout = 10 * time.Second

// temporary reports whether a call may succeed when tried again: transport
// errors, unavailable and internal answers, and an expired token (refreshed
// meanwhile).
func temporary(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return true
	}
	return e.Code == protocol.CodeUnavailable || e.Code == protocol.CodeInternal || e.Code == protocol.CodeUnauthenticated
}

// callRetry runs an idempotent call until the server answers, ctx ends or the
// client stops.
func (c *Client) callRetry(ctx context.Context, method string, params, out any) error {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := c.Call(actx, method, params, out)
		cancel()
		if err == nil || !temporary(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", method, ctx.Err(), err)
		case <-c.done:
			return errClosed
		case <-time.After(backoff(attempt, 100*time.Millisecond, 5*time.Second)):
		}
	}
}

// backoff doubles from base up to limit, with jitter.
func backoff(attempt int, base, limit time.Duration) time.Duration {
	d := base
	for i := 0; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// queue is an unbounded FIFO whose consumer waits on a channel, so the
// connection's event goroutine never blocks on a slow consumer.
type queue[T any] struct {
	mu    sync.Mutex
	items []T
	ready chan struct{}
}

func newQueue[T any]() *queue[T] { return &queue[T]{ready: make(chan struct{}, 1)} }

func (q *queue[T]) push(v ...T) {
	q.mu.Lock()
	q.items = append(q.items, v...)
	q.mu.Unlock()
	kick(q.ready)
}

func (q *queue[T]) pop() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items[0] = zero
	q.items = q.items[1:]
	if len(q.items) > 0 {
		kick(q.ready)
	}
	return v, true
}
