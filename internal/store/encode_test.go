package store

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

func TestEncodeUpdateMatchesMarshal(t *testing.T) {
	one := func(typ, data string) []protocol.Change {
		return []protocol.Change{{Type: typ, Data: json.RawMessage(data)}}
	}
	for _, u := range []protocol.Update{
		{Offset: 1, Epoch: "0a1b2c3d", Changes: one(protocol.UpdRTCUpdated, `{"id":"r1","output":"a\u2028b"}`)},
		{Offset: 1 << 40, Epoch: "e", Changes: one(protocol.UpdSessionCreated, `null`)},
		{Offset: 7, Epoch: `we"ird`, Changes: one("t\n", `[1,2]`)},
		{Offset: 8, Epoch: "e", Changes: append(one(protocol.UpdRTCUpdated, `{"id":"r1"}`), one(protocol.UpdTurnUpdated, `{"id":"t1"}`)...)},
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
