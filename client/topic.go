package client

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	centrifuge "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// topic keeps the position in the user's update stream and applies updates
// strictly in offset order; updates past a gap wait until the fill arrives.
type topic struct {
	mu    sync.Mutex
	known bool
	epoch string
	last  int64
	buf   map[int64]protocol.Update
}

// maxStatuses bounds the call statuses kept in memory.
const maxStatuses = 4096

// maxBuffered bounds the updates held behind a gap; past it the oldest wait
// for the fill from the store instead.
const maxBuffered = 10000

func (c *Client) onPublication(e centrifuge.ServerPublicationEvent) {
	switch {
	case strings.HasPrefix(e.Channel, "topic:"):
		var u protocol.Update
		if err := json.Unmarshal(e.Data, &u); err != nil {
			c.log.Warn("rtcagent client: bad update", "error", err)
			return
		}
		if c.offer(u) {
			kick(c.syncReq)
		}
	case strings.HasPrefix(e.Channel, "live:"):
		var d protocol.Delta
		if err := json.Unmarshal(e.Data, &d); err != nil {
			c.log.Warn("rtcagent client: bad delta", "error", err)
			return
		}
		if d.Type != "message.delta" {
			return // a piece of a call being written: the call comes whole on Topic
		}
		c.disp.push(item{delta: &d})
	}
}

func (c *Client) onSubscribed(e centrifuge.ServerSubscribedEvent) {
	if !strings.HasPrefix(e.Channel, "topic:") {
		return
	}
	t := &c.topic
	t.mu.Lock()
	if !e.Recovered && e.StreamPosition != nil {
		pos := e.StreamPosition
		if !t.known || pos.Epoch != t.epoch || int64(pos.Offset) < t.last {
			// A new client (or a stream that was reset) starts from the present:
			// what is open for this device comes from v1.rtc.pending below.
			t.known, t.epoch, t.last, t.buf = true, pos.Epoch, int64(pos.Offset), nil
		} else {
			kick(c.syncReq)
		}
	}
	t.mu.Unlock()
	kick(c.refetch)
	kick(c.outKick)
}

// offer applies u when it is the next update, buffers it past a gap, and
// reports whether a fill is needed.
func (c *Client) offer(u protocol.Update) (gap bool) {
	t := &c.topic
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.known {
		t.known, t.epoch, t.last = true, u.Epoch, u.Offset-1
	}
	if u.Epoch != t.epoch || u.Offset <= t.last {
		return false
	}
	if u.Offset > t.last+1 {
		if t.buf == nil {
			t.buf = map[int64]protocol.Update{}
		}
		if len(t.buf) < maxBuffered {
			t.buf[u.Offset] = u
		}
		return true
	}
	c.apply(u)
	t.last = u.Offset
	for {
		next, ok := t.buf[t.last+1]
		if !ok {
			break
		}
		delete(t.buf, next.Offset)
		c.apply(next)
		t.last = next.Offset
	}
	for off := range t.buf {
		if off <= t.last {
			delete(t.buf, off)
		}
	}
	return len(t.buf) > 0
}

// apply folds one update into the client's state (under the topic lock, so in
// offset order).
func (c *Client) apply(u protocol.Update) {
	for _, ch := range u.Changes {
		switch ch.Type {
		case protocol.UpdSessionCreated, protocol.UpdSessionUpdated:
			var s protocol.Session
			if json.Unmarshal(ch.Data, &s) == nil {
				c.mu.Lock()
				if s.Deleted {
					delete(c.sessions, s.ID)
				} else {
					c.sessions[s.ID] = s
				}
				c.mu.Unlock()
			}
		case protocol.UpdRTCUpdated:
			var r protocol.RTC
			if json.Unmarshal(ch.Data, &r) == nil {
				c.seeRTC(r)
			}
		}
		c.disp.push(item{change: &ch})
	}
}

// seeRTC notes the latest status of a call: an ended call's tool is
// cancelled, an open one is offered to the executor.
func (c *Client) seeRTC(r protocol.RTC) {
	c.mu.Lock()
	if len(c.status) >= maxStatuses {
		// Forget ended calls: one delivered again is refused by the server
		// (update_status executing answers conflict), so nothing runs twice.
		for id, st := range c.status {
			if protocol.RTCTerminal(st) {
				delete(c.status, id)
			}
		}
	}
	c.status[r.ID] = r.Status
	c.mu.Unlock()
	if protocol.RTCTerminal(r.Status) {
		c.running.Cancel(r.ID)
		return
	}
	if r.Status == protocol.RTCPending || r.Status == protocol.RTCSent || r.Status == protocol.RTCExecuting {
		c.execQ.push(r)
	}
}

// syncLoop fills gaps of the stream and fetches the open calls again after
// every subscription.
func (c *Client) syncLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.syncReq:
			c.fill(ctx)
		case <-c.refetch:
			var res protocol.RTCListResult
			if err := c.callRetry(ctx, protocol.MethodRTCPending, struct{}{}, &res); err != nil {
				c.log.Warn("rtcagent client: v1.rtc.pending", "error", err)
				continue
			}
			for _, r := range res.RTCs {
				c.seeRTC(r)
			}
		}
	}
}

// fill reads v1.update.list from the held position until it reaches the top.
func (c *Client) fill(ctx context.Context) {
	t := &c.topic
	for {
		t.mu.Lock()
		epoch, last := t.epoch, t.last
		t.mu.Unlock()
		var res protocol.UpdateListResult
		if err := c.callRetry(ctx, protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: last, Epoch: epoch, Limit: 200}, &res); err != nil {
			c.log.Warn("rtcagent client: v1.update.list", "error", err)
			return
		}
		if res.Reset {
			t.mu.Lock()
			t.known, t.epoch, t.last, t.buf = true, res.Epoch, res.Top, nil
			t.mu.Unlock()
			kick(c.refetch)
			return
		}
		for _, u := range res.Updates {
			c.offer(u)
		}
		t.mu.Lock()
		now := t.last
		t.mu.Unlock()
		if len(res.Updates) == 0 || now >= res.Top {
			return
		}
	}
}
