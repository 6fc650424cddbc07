package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Marshal is json.Marshal(v) without its second pass over what a MarshalJSON
// method of v returns (compacting and escaping it again): the entities'
// methods, and the replies that carry an entity as its store encoded it,
// return encoding/json's own output, which is compact and escaped already.
func Marshal(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || !rv.IsNil() {
			return m.MarshalJSON()
		}
	}
	return json.Marshal(v)
}

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
