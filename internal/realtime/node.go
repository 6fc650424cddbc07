package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/centrifugal/centrifuge"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/stack"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Config configures the realtime node.
type Config struct {
	Store    store.Store
	API      *api.API
	Verifier *auth.Verifier
	Logger   *slog.Logger
	// RecoveryLimit is the most updates pushed on reconnect; beyond it the client
	// refills with v1.update.list. Default 300.
	RecoveryLimit int
	// PageBytes bounds the Topic history read at once: a recovery on reconnect
	// (one frame to the client) and a relay read. A recovery that would pass it
	// is not done by Centrifuge; the client refills with v1.update.list, whose
	// pages the API bounds the same way. Default protocol.Limits' PageBytes.
	PageBytes int
	// PositionCheck is how often Centrifuge compares each client's Topic position
	// with the database; a publication lost on the way (a node or Redis failure
	// after the commit) is found then at the latest and recovered by a reconnect.
	// Each check costs one indexed read per user channel and node. Default 15 s.
	PositionCheck time.Duration
	// MaxRequestBytes bounds RPC data (the API rejects more with too_large); a
	// WebSocket frame may be twice that plus 64 KiB, for the command envelope and
	// JSON escaping, before the connection is closed.
	MaxRequestBytes int
	// RedisURL, when set, makes the node part of a cluster: Centrifuge's Redis broker
	// and presence manager fan publications out to every node, and control
	// messages (turn cancellation hints) reach every node.
	RedisURL    string
	RedisPrefix string // key prefix; default "rtcagent"
	// OnCancelTurn receives turn cancellation hints from any node (this one
	// included); see CancelTurn.
	OnCancelTurn func(turnID string)
	// AllowedOrigins for WebSocket connections; empty allows any origin (the token
	// is the credential, not a cookie). A connection from another origin is ended
	// with DisconnectOriginRefused before its token is read, and logged at warn
	// level with the Origin it sent.
	AllowedOrigins []string
}

// Node is the Centrifuge node with RTC Agent's channels and methods.
type Node struct {
	cfg   Config
	node  *centrifuge.Node
	relay *relay
	log   *slog.Logger
}

type connInfo struct {
	deviceID string
	// modes are the work modes the connection's token allows (nil: all); a
	// refreshed token replaces them.
	modes *atomic.Pointer[[]string]
}

type connKey struct{}

// New creates the node; call Run before serving.
// With RedisURL it waits for Redis to be reachable, until ctx ends.
func New(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.RecoveryLimit <= 0 {
		cfg.RecoveryLimit = 300
	}
	if cfg.PageBytes <= 0 {
		cfg.PageBytes = protocol.Limits{}.WithDefaults().PageBytes
	}
	if cfg.PositionCheck <= 0 {
		cfg.PositionCheck = 15 * time.Second
	}
	log := cfg.Logger.With("component", "realtime")
	node, err := centrifuge.New(centrifuge.Config{
		LogLevel:                        centrifuge.LogLevelWarn,
		LogHandler:                      func(e centrifuge.LogEntry) { log.Warn(e.Message, "fields", e.Fields) },
		RecoveryMaxPublicationLimit:     cfg.RecoveryLimit,
		ClientChannelPositionCheckDelay: cfg.PositionCheck,
		ClientQueueMaxSize:              16 << 20,
	})
	if err != nil {
		return nil, err
	}
	inner, err := newInnerBroker(ctx, node, cfg, log)
	if err != nil {
		return nil, err
	}
	node.SetBroker(&topicBroker{inner: inner, store: cfg.Store, pageBytes: cfg.PageBytes})
	n := &Node{cfg: cfg, node: node, log: log}
	node.OnNotification(n.onNotification)
	n.relay = newRelay(cfg.Store, log, cfg.PageBytes, publishTo(node))
	node.OnConnecting(n.onConnecting)
	node.OnConnect(n.onConnect)
	return n, nil
}

// Run starts the node and the relay.
func (n *Node) Run() error {
	if err := n.node.Run(); err != nil {
		return err
	}
	n.relay.start()
	return nil
}

// Shutdown stops the relay after it published what is pending, or when ctx ends
// (clients recover the rest from the store), then disconnects clients.
func (n *Node) Shutdown(ctx context.Context) error {
	n.relay.stop(ctx)
	return n.node.Shutdown(ctx)
}

// OnCommit is the store's commit hook: it notes the committed updates for the
// relay and returns at once; it never waits on the broker.
func (n *Node) OnCommit(c store.Commit) {
	if len(c.Updates) > 0 {
		n.relay.note(c.Updates)
	}
}

const opCancelTurn = "cancel_turn"

// CancelTurn sends a cancellation hint for a stopped turn to every node; the node
// streaming it cancels the model call at once instead of at its next write.
func (n *Node) CancelTurn(turnID string) {
	if err := n.node.Notify(opCancelTurn, []byte(turnID), ""); err != nil {
		n.log.Warn("send cancel hint", "turn", turnID, "err", err)
	}
}

func (n *Node) onNotification(e centrifuge.NotificationEvent) {
	if e.Op == opCancelTurn && n.cfg.OnCancelTurn != nil && len(e.Data) <= 128 {
		n.cfg.OnCancelTurn(string(e.Data))
	}
}

// PublishDelta publishes a Live chunk (best effort, no history).
func (n *Node) PublishDelta(userID string, d protocol.Delta) error { return n.publishLive(userID, d) }

// PublishCallDelta publishes a piece of a call being written on Live (best
// effort, no history).
func (n *Node) PublishCallDelta(userID string, d protocol.CallDelta) error {
	return n.publishLive(userID, d)
}

func (n *Node) publishLive(userID string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = n.node.Publish(LiveChannel(userID), data)
	return err
}

// WebSocketHandler serves /connection/websocket.
func (n *Node) WebSocketHandler() http.Handler {
	// Memory per idle connection (docs/benchmarks.md, row 3): a small read buffer
	// (a larger frame is read straight into its message), write buffers from a
	// pool, and commands processed off the read loop, so the loop's goroutine
	// keeps a shallow stack while the connection idles.
	cfg := centrifuge.WebsocketConfig{ReadBufferSize: 1024, UseWriteBufferPool: true, ProcessCommandsOffReadLoop: true,
		MessageSizeLimit: 2*n.cfg.MaxRequestBytes + 64<<10}
	// Every origin is upgraded; a refused one is turned away in onConnecting with
	// DisconnectOriginRefused. A browser cannot read why an upgrade failed (it sees
	// close code 1006, as for a server that is down), but it reads a close code.
	cfg.CheckOrigin = func(*http.Request) bool { return true }
	ws := centrifuge.NewWebsocketHandler(n.node, cfg)
	if len(n.cfg.AllowedOrigins) == 0 {
		return ws
	}
	allowed := map[string]bool{}
	for _, o := range n.cfg.AllowedOrigins {
		allowed[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if !allowed[origin] {
			n.log.Warn("websocket origin refused", "origin", origin, "remote", r.RemoteAddr)
			r = r.WithContext(context.WithValue(r.Context(), originRefusedKey{}, origin))
		}
		ws.ServeHTTP(w, r)
	})
}

// DisconnectOriginRefused ends a connection from a page whose origin is not in
// AllowedOrigins, before its token is read. Its code is in the range after which
// clients do not reconnect: the page cannot change its origin.
var DisconnectOriginRefused = centrifuge.Disconnect{Code: 4503, Reason: "origin not allowed"}

type originRefusedKey struct{}

// tokenHint says, for the log, what a rejected token's shape suggests, without
// any of its content: the common mistake is a token source that returns the
// token endpoint's JSON body instead of the token in it.
func tokenHint(tok string) string {
	switch t := strings.TrimSpace(tok); {
	case t == "":
		return "no token"
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "\""):
		return "the token is JSON, not a JWT: return the token string from the JSON your token endpoint answers"
	case strings.Count(t, ".") != 2:
		return "not a JWT (three dot-separated parts)"
	}
	return "a JWT the server does not accept: check its secret, expiry, audience and issuer"
}

func (n *Node) onConnecting(ctx context.Context, e centrifuge.ConnectEvent) (centrifuge.ConnectReply, error) {
	if _, refused := ctx.Value(originRefusedKey{}).(string); refused {
		return centrifuge.ConnectReply{}, DisconnectOriginRefused
	}
	claims, err := n.cfg.Verifier.Verify(e.Token)
	if errors.Is(err, auth.ErrExpired) {
		return centrifuge.ConnectReply{}, centrifuge.ErrorTokenExpired
	}
	if err != nil {
		n.log.Info("connect refused: the token was rejected", "err", err, "hint", tokenHint(e.Token))
		return centrifuge.ConnectReply{}, centrifuge.DisconnectInvalidToken
	}
	cd, err := parseConnectData(e.Data)
	if err != nil {
		n.log.Debug("connect refused", "user", claims.UserID, "err", err)
		return centrifuge.ConnectReply{}, DisconnectBadConnectData
	}
	info := connInfo{deviceID: cd.DeviceID, modes: &atomic.Pointer[[]string]{}}
	info.modes.Store(&claims.Modes)
	return centrifuge.ConnectReply{
		Context:           context.WithValue(ctx, connKey{}, info),
		Credentials:       &centrifuge.Credentials{UserID: claims.UserID, ExpireAt: claims.ExpiresAt.Unix()},
		ClientSideRefresh: true,
		Subscriptions: map[string]centrifuge.SubscribeOptions{
			TopicChannel(claims.UserID): {EnableRecovery: true, RecoveryMode: centrifuge.RecoveryModeStream},
			LiveChannel(claims.UserID):  {},
		},
	}, nil
}

func (n *Node) onConnect(c *centrifuge.Client) {
	info, _ := c.Context().Value(connKey{}).(connInfo)
	caller := core.Caller{UserID: c.UserID(), DeviceID: info.deviceID}
	c.OnRefresh(func(e centrifuge.RefreshEvent, cb centrifuge.RefreshCallback) {
		claims, err := n.cfg.Verifier.Verify(e.Token)
		if err != nil || claims.UserID != caller.UserID {
			cb(centrifuge.RefreshReply{Expired: true}, nil)
			return
		}
		if info.modes != nil {
			info.modes.Store(&claims.Modes)
		}
		cb(centrifuge.RefreshReply{ExpireAt: claims.ExpiresAt.Unix()}, nil)
	})
	// Calls take their context from one that ends when the client
	// disconnects (Centrifuge calls OnDisconnect once for a client whose
	// OnConnect ran; over WebSocket it reads the next frame, and so sees a
	// disconnect, only once the frame's commands returned, so a call in
	// flight runs to its end or its timeout). The client's own context has
	// a Done channel of Centrifuge's making, so a context made from it for
	// each call would start a goroutine to watch it.
	connCtx, disconnected := context.WithCancel(context.WithoutCancel(c.Context()))
	c.OnDisconnect(func(centrifuge.DisconnectEvent) { disconnected() })
	c.OnRPC(func(e centrifuge.RPCEvent, cb centrifuge.RPCCallback) {
		// With ProcessCommandsOffReadLoop, Centrifuge runs each frame's
		// commands on a goroutine of their own; a call reaches the store's
		// driver.
		stack.Grow()
		ctx, cancel := context.WithTimeout(connCtx, 30*time.Second)
		defer cancel()
		caller := caller
		if info.modes != nil {
			caller.Modes = *info.modes.Load()
		}
		res, perr := n.cfg.API.Call(ctx, caller, e.Method, e.Data)
		if perr != nil {
			cb(centrifuge.RPCReply{}, &centrifuge.Error{Code: protocol.RPCCode(perr.Code), Message: perr.Message,
				Temporary: perr.Code == protocol.CodeUnavailable})
			return
		}
		cb(centrifuge.RPCReply{Data: res}, nil)
	})
}

// mustPayload is an update as stored: the payload this process's commit wrote,
// or an encoding whose changes' data are encoding/json's own output (the
// payloads the store keeps), so they are not compacted again.
func mustPayload(u protocol.Update) []byte {
	if u.Payload != nil {
		if testing.Testing() {
			if b, _ := store.EncodeUpdate(u); !bytes.Equal(b, u.Payload) {
				panic(fmt.Sprintf("realtime: update %s/%d changed after its commit: stored %s, now %s", u.UserID, u.Offset, u.Payload, b))
			}
		}
		return u.Payload
	}
	b, _ := store.EncodeUpdate(u)
	return b
}
