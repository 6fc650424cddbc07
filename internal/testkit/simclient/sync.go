package simclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	centrifuge "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// callAttempt bounds one attempt of a retried call.
const callAttempt = 5 * time.Second

// ErrClosed ends the retries of a client that was closed (the page went away).
var ErrClosed = errors.New("simclient: client closed")

// CallRetry runs an RPC until it succeeds, the server answers with a definitive
// error (anything but unavailable or internal), ctx ends or the client closes.
// Only idempotent calls may be retried: sends with a client_id, submissions, reads.
func (c *Client) CallRetry(ctx context.Context, method string, params, out any) error {
	for {
		actx, cancel := context.WithTimeout(ctx, callAttempt)
		err := c.Call(actx, method, params, out)
		cancel()
		if err == nil {
			return nil
		}
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code != protocol.CodeUnavailable && pe.Code != protocol.CodeInternal {
			return err
		}
		select {
		case <-c.done:
			return ErrClosed
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", method, ctx.Err(), err)
		case <-time.After(time.Duration(50+rand.IntN(100)) * time.Millisecond):
		}
	}
}

// Disconnect drops the connection as a network loss would; Reconnect restores
// it. Centrifuge recovers what the Topic published meanwhile, the profile fills
// the rest.
func (c *Client) Disconnect() error { return c.c.Disconnect() }

// Reconnect connects again after Disconnect.
func (c *Client) Reconnect() error { return c.c.Connect() }

// onSubscribed runs after every (re)subscription to the user's channels: the
// browser SDK then refills the Topic from its stored position and asks which
// RTCs are still open.
func (c *Client) onSubscribed(e centrifuge.ServerSubscribedEvent) {
	if strings.HasPrefix(e.Channel, "topic:") {
		c.pendingReq.Store(true)
		c.requestSync()
	}
}

func (c *Client) requestSync() {
	select {
	case c.syncReq <- struct{}{}:
	default:
	}
}

// syncLoop serves fill and pending requests one at a time.
func (c *Client) syncLoop() {
	for {
		select {
		case <-c.done:
			return
		case <-c.syncReq:
		}
		ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
		if err := c.fill(ctx); err != nil && !errors.Is(err, ErrClosed) {
			c.fail(fmt.Errorf("fill: %w", err))
		}
		if c.pendingReq.Swap(false) {
			if err := c.refetchPending(ctx); err != nil && !errors.Is(err, ErrClosed) {
				c.fail(fmt.Errorf("pending: %w", err))
			}
		}
		cancel()
	}
}

// fill reads v1.update.list from the profile's position until it holds the top.
func (c *Client) fill(ctx context.Context) error {
	p := c.cfg.Profile
	for {
		epoch, last := p.Position()
		var res protocol.UpdateListResult
		if err := c.CallRetry(ctx, protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: last, Epoch: epoch, Limit: 200}, &res); err != nil {
			return err
		}
		if res.Reset {
			p.mu.Lock()
			p.violate(fmt.Errorf("v1.update.list reset at offset %d (epoch %q, now %q)", last, epoch, res.Epoch))
			p.mu.Unlock()
			return nil
		}
		for _, u := range res.Updates {
			deliver, _ := p.offer(u)
			c.enqueue(deliver, time.Time{})
		}
		if _, now := p.Position(); len(res.Updates) == 0 || now >= res.Top {
			return nil
		}
	}
}

// refetchPending re-delivers the open RTCs of this device (v1.rtc.pending); the
// journal decides what each needs.
func (c *Client) refetchPending(ctx context.Context) error {
	if c.cfg.Tool == nil {
		return nil
	}
	var res protocol.RTCListResult
	if err := c.CallRetry(ctx, protocol.MethodRTCPending, struct{}{}, &res); err != nil {
		return err
	}
	c.enqueue(res.RTCs, time.Time{})
	return nil
}

// enqueue queues calls for execution that arrived at at (zero: listed).
func (c *Client) enqueue(rs []protocol.RTC, at time.Time) {
	if c.cfg.Tool == nil {
		return
	}
	for _, r := range rs {
		select {
		case c.exec <- delivered{r, at}:
		default:
			c.fail(fmt.Errorf("execution queue full, dropped %s", r.ID))
		}
	}
}
