package simclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	centrifuge "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Config describes one simulated browser.
type Config struct {
	URL      string // ws://host/connection/websocket
	Token    string // connection JWT
	DeviceID string // sent as {device_id} in the connect data
	// GetToken refreshes the token on reconnect; nil keeps Token.
	GetToken func() (string, error)
	// Tool executes delivered RTCs; nil means the client does not execute (an
	// observer tab).
	Tool ToolFunc
	// Confirm, if set, is the person asked about a delivered call that needs
	// confirmation, as the browser SDK asks: a browser call runs only when they
	// allow it (the answer goes with update_status executing), a server call is
	// approved (v1.rtc.approve) or refused. Nil: browser calls run without
	// asking, and Tool answers for server calls (Reject refuses).
	Confirm ConfirmFunc
	// Record keeps every update and delta (tests); off, only turn states are kept.
	Record bool
	// OnDelta, if set, sees every Live delta with its receive time (latency
	// measurement); it runs on the client's event goroutine and must be quick.
	OnDelta func(d protocol.Delta, received time.Time)
	// OnSubmit, if set, is told, as a call's result is about to be sent, how
	// long this client held the call: from the arrival of the publication that
	// delivered it (before decoding it) to the send, the client's share of a
	// round trip, less its wait for the answer to executing. With a Profile,
	// a call held back until a gap was filled counts from the publication
	// that released it. Calls listed by v1.rtc.pending or v1.update.list
	// have no arrival and are not reported. It runs on the execution
	// goroutine and must be quick.
	OnSubmit func(toolCallID string, held time.Duration)
	// NetDialContext, if set, opens the TCP connection (the load tool wraps it to
	// count the bytes the client sends); nil uses net.Dialer.
	NetDialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Profile, if set, is the browser profile this client belongs to (see
	// Profile): updates are applied in order with gaps filled, open RTCs are
	// re-fetched after every subscription, and executions are journaled.
	Profile *Profile
}

// Client is one connected simulated browser. Safe for concurrent use.
type Client struct {
	cfg  Config
	c    *centrifuge.Client
	exec chan delivered
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	lastOff int64
	updates []protocol.Update
	deltas  map[string][]protocol.Delta
	// callDeltas are the pieces of calls being written, as they came (Record only).
	callDeltas []protocol.CallDelta
	turns      map[string]protocol.Turn
	seenRTC    map[string]bool
	executed   int
	errs       []error
	changed    chan struct{} // closed and replaced on every turn change

	syncReq    chan struct{} // a fill or pending re-fetch is wanted (Profile)
	pendingReq atomic.Bool
}

// Dial connects and waits until the server accepted the connection.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	data, err := json.Marshal(map[string]string{"device_id": cfg.DeviceID})
	if err != nil {
		return nil, err
	}
	cl := &Client{cfg: cfg, exec: make(chan delivered, 256), done: make(chan struct{}),
		deltas: map[string][]protocol.Delta{}, turns: map[string]protocol.Turn{}, seenRTC: map[string]bool{}, changed: make(chan struct{}),
		syncReq: make(chan struct{}, 1)}
	// A browser waits for a slow handshake; centrifuge-go's default of 1 s fails
	// the first dial of thousands of clients on a busy machine.
	ccfg := centrifuge.Config{Token: cfg.Token, Data: data, MinReconnectDelay: 50 * time.Millisecond, MaxReconnectDelay: time.Second,
		NetDialContext: cfg.NetDialContext, HandshakeTimeout: 10 * time.Second}
	if cfg.GetToken != nil {
		ccfg.GetToken = func(centrifuge.ConnectionTokenEvent) (string, error) { return cfg.GetToken() }
	}
	cl.c = centrifuge.NewJsonClient(cfg.URL, ccfg)
	connected := make(chan struct{}, 1)
	cl.c.OnConnected(func(centrifuge.ConnectedEvent) {
		select {
		case connected <- struct{}{}:
		default:
		}
	})
	cl.c.OnPublication(cl.onPublication)
	if cfg.Profile != nil {
		cl.c.OnSubscribed(cl.onSubscribed)
		go cl.syncLoop()
	}
	if err := cl.c.Connect(); err != nil {
		return nil, err
	}
	select {
	case <-connected:
	case <-ctx.Done():
		cl.Close()
		return nil, fmt.Errorf("simclient: connect: %w", ctx.Err())
	}
	if cfg.Tool != nil {
		go cl.execLoop()
	}
	return cl, nil
}

// Close disconnects and stops executing; idempotent.
func (c *Client) Close() {
	c.once.Do(func() {
		close(c.done)
		c.c.Close()
	})
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// Err returns the protocol violations and execution failures seen so far.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

func (c *Client) onPublication(e centrifuge.ServerPublicationEvent) {
	switch {
	case strings.HasPrefix(e.Channel, "topic:"):
		at := time.Now()
		var u protocol.Update
		if err := json.Unmarshal(e.Data, &u); err != nil {
			c.fail(fmt.Errorf("bad update: %w", err))
			return
		}
		if int64(e.Offset) != u.Offset {
			c.fail(fmt.Errorf("publication offset %d, payload offset %d", e.Offset, u.Offset))
		}
		if p := c.cfg.Profile; p != nil {
			deliver, gap := p.offer(u)
			c.enqueue(deliver, at)
			if gap {
				c.requestSync()
			}
			return
		}
		c.apply(u, at)
	case strings.HasPrefix(e.Channel, "live:"):
		now := time.Now()
		var d protocol.Delta
		if err := json.Unmarshal(e.Data, &d); err != nil {
			c.fail(fmt.Errorf("bad delta: %w", err))
			return
		}
		if d.Type == protocol.CallDeltaType {
			var cd protocol.CallDelta
			if err := json.Unmarshal(e.Data, &cd); err != nil {
				c.fail(fmt.Errorf("bad call delta: %w", err))
				return
			}
			if c.cfg.Record {
				c.mu.Lock()
				c.callDeltas = append(c.callDeltas, cd)
				c.mu.Unlock()
			}
			return
		}
		if c.cfg.OnDelta != nil {
			c.cfg.OnDelta(d, now)
		}
		if c.cfg.Record {
			c.mu.Lock()
			c.deltas[d.MessageID] = append(c.deltas[d.MessageID], d)
			c.mu.Unlock()
		}
	}
}

// apply folds in an update that arrived at at.
func (c *Client) apply(u protocol.Update, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lastOff != 0 && u.Offset != c.lastOff+1 {
		c.errs = append(c.errs, fmt.Errorf("offset %d after %d", u.Offset, c.lastOff))
	}
	c.lastOff = u.Offset
	if c.cfg.Record {
		c.updates = append(c.updates, u)
	}
	for _, ch := range u.Changes {
		c.applyChange(ch, at)
	}
}

// applyChange folds one entity change in (under c.mu).
func (c *Client) applyChange(ch protocol.Change, at time.Time) {
	switch ch.Type {
	case protocol.UpdRTCUpdated:
		var r protocol.RTC
		if json.Unmarshal(ch.Data, &r) == nil && r.Status == protocol.RTCPending && c.cfg.Tool != nil && !c.seenRTC[r.ID] {
			c.seenRTC[r.ID] = true
			select {
			case c.exec <- delivered{r, at}:
			default: // more than 256 queued RTCs: a bug or a stuck tool; report rather than block the event loop
				c.errs = append(c.errs, fmt.Errorf("execution queue full, dropped %s", r.ID))
			}
		}
	case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
		var tr protocol.Turn
		if json.Unmarshal(ch.Data, &tr) == nil {
			c.turns[tr.ID] = tr
			close(c.changed)
			c.changed = make(chan struct{})
		}
	}
}

// Call runs an RPC; params are marshalled to JSON and the result into out (if not nil).
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	res, err := c.c.RPC(ctx, method, data)
	if err != nil {
		var ce *centrifuge.Error
		if errors.As(err, &ce) {
			return &protocol.Error{Code: protocol.CodeFromRPC(ce.Code), Message: ce.Message}
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	if out != nil {
		return json.Unmarshal(res.Data, out)
	}
	return nil
}

// Send posts a user message (a new session when sessionID is empty).
func (c *Client) Send(ctx context.Context, sessionID, clientID, text string) (protocol.MessageSendResult, error) {
	var res protocol.MessageSendResult
	err := c.Call(ctx, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: clientID, SessionID: sessionID,
		Content: protocol.MessageContent{Text: text}}, &res)
	return res, err
}

// WaitTurn waits until the turn reaches a terminal status, as seen on the Topic.
func (c *Client) WaitTurn(ctx context.Context, turnID string) (protocol.Turn, error) {
	for {
		c.mu.Lock()
		tr, ok := c.turns[turnID]
		ch := c.changed
		c.mu.Unlock()
		if ok && protocol.TurnTerminal(tr.Status) {
			c.mu.Lock()
			delete(c.turns, turnID) // long runs must not accumulate turns
			c.mu.Unlock()
			return tr, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return tr, fmt.Errorf("turn %s (%s): %w", turnID, tr.Status, ctx.Err())
		}
	}
}

// Updates returns the recorded Topic updates (Record only).
func (c *Client) Updates() []protocol.Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.Update(nil), c.updates...)
}

// CallDeltas returns the recorded pieces of calls being written (Record only).
func (c *Client) CallDeltas() []protocol.CallDelta {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.CallDelta(nil), c.callDeltas...)
}

// Deltas returns the recorded Live deltas of a message (Record only).
func (c *Client) Deltas(messageID string) []protocol.Delta {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.Delta(nil), c.deltas[messageID]...)
}

// Executed counts the RTCs this client ran.
func (c *Client) Executed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.executed
}
