package protocol

import (
	"encoding/json"
	"fmt"
)

// withMember is obj, a JSON object as encoding/json writes one, with the
// member name: *v added last, as a struct that embeds obj's type and adds v's
// field (a pointer, omitempty) encodes: obj itself when v is nil. The result
// is a new slice; obj is left as it is.
func withMember[T any](obj []byte, name string, v *T) ([]byte, error) {
	if v == nil {
		return obj, nil
	}
	value, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	n := len(obj)
	if n < 2 || obj[0] != '{' || obj[n-1] != '}' {
		return nil, fmt.Errorf("protocol: %q is not a JSON object", obj)
	}
	out := make([]byte, 0, n+len(name)+len(value)+4)
	out = append(out, obj[:n-1]...)
	if n > 2 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, name...)
	out = append(out, `":`...)
	out = append(out, value...)
	return append(out, '}'), nil
}
