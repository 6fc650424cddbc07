package store

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

func TestEncodeUpdateMatchesMarshal(t *testing.T) {
	for _, u := range []protocol.Update{
		{Offset: 1, Epoch: "0a1b2c3d", Type: protocol.UpdRTCUpdated, Data: json.RawMessage(`{"id":"r1","output":"a\u2028b"}`)},
		{Offset: 1 << 40, Epoch: "e", Type: protocol.UpdSessionCreated, Data: json.RawMessage(`null`)},
		{Offset: 7, Epoch: `we"ird`, Type: "t\n", Data: json.RawMessage(`[1,2]`)},
	} {
		got, err := EncodeUpdate(u)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("payload %s, json.Marshal %s", got, want)
		}
	}
}
