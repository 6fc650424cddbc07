package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// DecodedRow is a row as stored (Data) and what Data decodes to (Value: a
// *T of the row's type, or nil while not decoded). Value never changes: a
// store hands a transaction copies of it (CopyDecoded), and the Topic change
// of the write that kept it carries it (Batch.Decoded), which its readers
// must not write through.
type DecodedRow struct {
	Data  []byte
	Value any
}

// CopyDecoded is a copy of the value r, the row kind/id, keeps, when it
// keeps a *T. In tests the copy is checked against a decode of r.Data.
func CopyDecoded[T any](kind, id string, r DecodedRow) (v *T, ok bool, err error) {
	p, ok := r.Value.(*T)
	if !ok {
		return nil, false, nil
	}
	v = Clone(p)
	return v, true, CheckDecoded(kind, id, r.Data, v)
}

// CheckDecoded, in tests, decodes data and fails when v, what a store keeps
// as the decoded value of the row kind/id, differs.
func CheckDecoded[T any](kind, id string, data []byte, v *T) error {
	if !testing.Testing() {
		return nil
	}
	var want T
	if err := json.Unmarshal(data, &want); err != nil || !reflect.DeepEqual(&want, v) {
		return fmt.Errorf("store: %s %s is kept decoded as %+v, its data decodes as %+v (%v)", kind, id, v, &want, err)
	}
	return nil
}
