package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/centrifugal/centrifuge"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Feed receives one user's Topic updates and Live chunks inside the server, as
// a browser of that user would: it is a Centrifuge client on an in-process,
// one-way transport, connected with the user's token, so it gets the same
// server-side subscriptions, from whichever node publishes (through the broker
// in a cluster), in the same per-user order. It starts at the moment it
// connects; what came before is read from the store. A feed that falls behind
// its publications is disconnected by Centrifuge (its queue is bounded) and
// ends with an error, as does one whose Topic position check finds a gap.
type Feed struct {
	t     *feedTransport
	topic string
	live  string
	close func()
}

// FeedEvent is one publication: a Topic update or a Live chunk.
type FeedEvent struct {
	Update *protocol.Update
	Delta  *protocol.Delta
}

// ErrFeedEnded is returned once a feed was disconnected.
var ErrFeedEnded = errors.New("realtime: feed ended")

// Follow connects a feed for the owner of token, on device deviceID. The token
// is checked as a connection's is.
func (n *Node) Follow(ctx context.Context, token, deviceID string) (*Feed, error) {
	data, err := json.Marshal(connectData{DeviceID: deviceID})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &feedTransport{out: make(chan []byte, 256), done: make(chan struct{})}
	c, closeClient, err := centrifuge.NewClient(ctx, n.node, t)
	if err != nil {
		cancel()
		return nil, err
	}
	f := &Feed{t: t, close: func() { _ = closeClient(); cancel() }}
	if err := c.ConnectNoErrorToDisconnect(centrifuge.ConnectRequest{Token: token, Data: data}); err != nil {
		f.Close()
		return nil, fmt.Errorf("follow: %w", err)
	}
	f.topic, f.live = TopicChannel(c.UserID()), LiveChannel(c.UserID())
	return f, nil
}

// Close disconnects the feed.
func (f *Feed) Close() { f.close() }

// Next returns the next publication, ErrFeedEnded once the feed was
// disconnected (after what arrived before), or ctx's error.
func (f *Feed) Next(ctx context.Context) (FeedEvent, error) {
	for {
		var b []byte
		select {
		case b = <-f.t.out:
		default:
			select {
			case b = <-f.t.out:
			case <-f.t.done:
				return FeedEvent{}, f.t.ended()
			case <-ctx.Done():
				return FeedEvent{}, ctx.Err()
			}
		}
		ev, err := f.decode(b)
		if err != nil || ev.Update != nil || ev.Delta != nil {
			return ev, err
		}
	}
}

// push is the part of a Centrifuge push (JSON protocol) a feed reads.
type push struct {
	Channel string `json:"channel"`
	Pub     *struct {
		Data json.RawMessage `json:"data"`
	} `json:"pub"`
	Unsubscribe *struct {
		Reason string `json:"reason"`
	} `json:"unsubscribe"`
	Disconnect *struct {
		Reason string `json:"reason"`
	} `json:"disconnect"`
}

func (f *Feed) decode(b []byte) (FeedEvent, error) {
	var p push
	if err := json.Unmarshal(b, &p); err != nil {
		return FeedEvent{}, fmt.Errorf("feed: push: %w", err)
	}
	switch {
	case p.Disconnect != nil:
		return FeedEvent{}, fmt.Errorf("%w: %s", ErrFeedEnded, p.Disconnect.Reason)
	case p.Unsubscribe != nil:
		return FeedEvent{}, fmt.Errorf("%w: unsubscribed from %s: %s", ErrFeedEnded, p.Channel, p.Unsubscribe.Reason)
	case p.Pub == nil:
		return FeedEvent{}, nil // the connect push
	case p.Channel == f.topic:
		var u protocol.Update
		if err := json.Unmarshal(p.Pub.Data, &u); err != nil {
			return FeedEvent{}, fmt.Errorf("feed: update: %w", err)
		}
		return FeedEvent{Update: &u}, nil
	case p.Channel == f.live:
		var d protocol.Delta
		if err := json.Unmarshal(p.Pub.Data, &d); err != nil {
			return FeedEvent{}, fmt.Errorf("feed: delta: %w", err)
		}
		if d.Type != "message.delta" {
			return FeedEvent{}, nil // a piece of a call being written: its RTC follows on Topic
		}
		return FeedEvent{Delta: &d}, nil
	}
	return FeedEvent{}, nil
}

// feedTransport is the one-way transport of a Feed: Centrifuge writes each
// push to it, and it hands them to Next. A write waits while Next is behind;
// Centrifuge's own bounded queue then fills, and it disconnects the feed.
type feedTransport struct {
	out    chan []byte
	done   chan struct{}
	once   sync.Once
	reason string
}

func (t *feedTransport) Name() string                      { return "in-process" }
func (t *feedTransport) AcceptProtocol() string            { return "" }
func (t *feedTransport) Protocol() centrifuge.ProtocolType { return centrifuge.ProtocolTypeJSON }
func (t *feedTransport) ProtocolVersion() centrifuge.ProtocolVersion {
	return centrifuge.ProtocolVersion2
}
func (t *feedTransport) Unidirectional() bool      { return true }
func (t *feedTransport) Emulation() bool           { return false }
func (t *feedTransport) DisabledPushFlags() uint64 { return 0 }
func (t *feedTransport) PingPongConfig() centrifuge.PingPongConfig {
	return centrifuge.PingPongConfig{PingInterval: -1, PongTimeout: -1}
}

func (t *feedTransport) Write(b []byte) error { return t.WriteMany(b) }

func (t *feedTransport) WriteMany(bs ...[]byte) error {
	for _, b := range bs {
		select {
		case t.out <- bytes.Clone(b):
		case <-t.done:
			return io.EOF
		}
	}
	return nil
}

func (t *feedTransport) Close(d centrifuge.Disconnect) error {
	t.once.Do(func() {
		t.reason = d.Reason
		close(t.done)
	})
	return nil
}

func (t *feedTransport) ended() error {
	if r := strings.TrimSpace(t.reason); r != "" {
		return fmt.Errorf("%w: %s", ErrFeedEnded, r)
	}
	return ErrFeedEnded
}
