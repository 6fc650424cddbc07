package store

import (
	"encoding/json"
	"strconv"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// EncodeUpdate is json.Marshal(u) for a u.Data just produced by json.Marshal: it
// skips compacting the data again. Epochs and update types are plain identifiers;
// others take json.Marshal.
func EncodeUpdate(u protocol.Update) ([]byte, error) {
	if !plain(u.Epoch) || !plain(u.Type) {
		return json.Marshal(u)
	}
	b := make([]byte, 0, len(u.Data)+len(u.Epoch)+len(u.Type)+48)
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, u.Offset, 10)
	b = append(b, `,"epoch":"`...)
	b = append(b, u.Epoch...)
	b = append(b, `","type":"`...)
	b = append(b, u.Type...)
	b = append(b, `","data":`...)
	b = append(b, u.Data...)
	return append(b, '}'), nil
}

// plain reports whether s needs no escaping in a JSON string.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
