package session

import (
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/livebuf"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// The partial text of a message whose streamer died is dropped from Redis by the
// commit that closes the message, whatever closes it: a stop, or closing or
// deleting the session. No one else would drop it (its streamer is gone), and it
// would stay for the buffer's hour.
func TestClosingADeadStreamersMessageDropsItsPartialText(t *testing.T) {
	opt, err := redis.ParseURL(testsvc.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	t.Cleanup(func() { rc.Close() })
	for _, tc := range []struct{ name, method string }{
		{"stop", protocol.MethodTurnStop},
		{"close", protocol.MethodSessionClose},
		{"delete", protocol.MethodSessionDelete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := testsvc.SQLite(t)
			parts := livebuf.NewRedis(rc, "rtcagent-test-"+testsvc.Unique()+":")
			r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), Partials: parts, PollInterval: time.Hour})
			a := api.New(st, r, protocol.Limits{}, slog.Default())
			// The dead node's lease outlasts the test: no worker takes the turn
			// over (and streams again) before the close.
			res, msgID := deadStreamer(ctx, t, st, parts, "half a sentence", time.Hour)

			call(ctx, t, a, tc.method, map[string]string{"session_id": res.SessionID}, &map[string]any{})
			if _, _, ok, err := parts.Get(ctx, msgID); ok || err != nil {
				t.Fatalf("partial text of the closed message still in Redis (err %v)", err)
			}
			if tc.method == protocol.MethodSessionDelete {
				return // the session's messages are not listed any more
			}
			var list protocol.MessageListResult
			call(ctx, t, a, protocol.MethodMessageList, map[string]string{"session_id": res.SessionID}, &list)
			for _, m := range list.Messages {
				if m.ID == msgID && (m.Status != protocol.MessageInterrupted || m.Text != "half a sentence") {
					t.Fatalf("closed message: %s %q, want interrupted with the streamed text", m.Status, m.Text)
				}
			}
		})
	}
}
