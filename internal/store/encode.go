package store

import (
	"encoding/json"
	"strconv"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// EncodeUpdate is json.Marshal(u) for changes whose data was just produced by
// json.Marshal: it skips compacting the data again. Epochs and update types are
// plain identifiers; others take json.Marshal.
func EncodeUpdate(u protocol.Update) ([]byte, error) {
	size := len(u.Epoch) + 48
	for _, c := range u.Changes {
		if !plain(c.Type) {
			return json.Marshal(u)
		}
		size += len(c.Type) + len(c.Data) + 20
	}
	if !plain(u.Epoch) {
		return json.Marshal(u)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, u.Offset, 10)
	b = append(b, `,"epoch":"`...)
	b = append(b, u.Epoch...)
	b = append(b, `","changes":[`...)
	for i, c := range u.Changes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"`...)
		b = append(b, c.Type...)
		b = append(b, `","data":`...)
		if len(c.Data) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, c.Data...)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
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
