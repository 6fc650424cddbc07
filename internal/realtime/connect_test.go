package realtime_test

import (
	"strings"
	"testing"
	"time"

	cgo "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/realtime"
)

// TestConnectDataRefused: a connect request without a valid device id is refused
// with the documented disconnect code and reason, and the client does not retry;
// a valid one connects.
func TestConnectDataRefused(t *testing.T) {
	_, url := startLocalNode(t)
	v, _ := auth.NewVerifier(testSecret)
	tok, _, _ := v.Issue("alice", time.Hour)

	cases := map[string]string{
		"none":          "",
		"not an object": `["d1"]`,
		"no device":     `{}`,
		"empty device":  `{"device_id": ""}`,
		"bad character": `{"device_id": "d 1"}`,
		"markup":        `{"device_id": "<script>"}`,
		"too long":      `{"device_id": "` + strings.Repeat("d", 129) + `"}`,
		"huge":          `{"device_id": "d1", "pad": "` + strings.Repeat("x", 2000) + `"}`,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			c := cgo.NewJsonClient(url, cgo.Config{Token: tok, Data: []byte(data), MinReconnectDelay: 10 * time.Millisecond})
			defer c.Close()
			gone := make(chan cgo.DisconnectedEvent, 4)
			c.OnDisconnected(func(e cgo.DisconnectedEvent) { gone <- e })
			c.OnConnected(func(cgo.ConnectedEvent) { t.Error("connected") })
			if err := c.Connect(); err != nil {
				t.Fatal(err)
			}
			select {
			case e := <-gone:
				if e.Code != realtime.DisconnectBadConnectData.Code || e.Reason != realtime.DisconnectBadConnectData.Reason {
					t.Fatalf("disconnected with %d %q", e.Code, e.Reason)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("not refused")
			}
			time.Sleep(100 * time.Millisecond) // a reconnect would show here
			if c.State() != cgo.StateDisconnected {
				t.Fatalf("client state %v after the refusal, want disconnected for good", c.State())
			}
		})
	}
	// Data that is not JSON at all is refused by Centrifuge itself, as a bad
	// request, also without a reconnect.
	t.Run("not json", func(t *testing.T) {
		c := cgo.NewJsonClient(url, cgo.Config{Token: tok, Data: []byte(`device`)})
		defer c.Close()
		gone := make(chan cgo.DisconnectedEvent, 1)
		c.OnDisconnected(func(e cgo.DisconnectedEvent) { gone <- e })
		if err := c.Connect(); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-gone:
			if e.Code != 3501 {
				t.Fatalf("disconnected with %d %q, want 3501 bad request", e.Code, e.Reason)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("not refused")
		}
	})
	for _, id := range []string{"d1", "7d3f0b5e-2c1a-4f7e-9b1d-0a2b3c4d5e6f", "site:user-42_tab.1", strings.Repeat("d", 128)} {
		if err := protocol.ValidDeviceID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	dial(t, url, "alice") // {"device_id": "d1"}
}
