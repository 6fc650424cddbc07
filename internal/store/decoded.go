package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// DecodedRTC is r as its stored JSON decodes: the entity's fields and its
// audit state (a field the entity does not send, copied as decoded all the
// same).
func DecodedRTC(r *protocol.RTC) *protocol.RTC { return CloneAsDecoded(r) }

// DecodedTurn is t as its stored JSON decodes: the entity's fields and its
// checkpoint (copied as the audit state is).
func DecodedTurn(t *protocol.Turn) *protocol.Turn { return CloneAsDecoded(t) }

// DecodedSession is s as its stored JSON decodes.
func DecodedSession(s *protocol.Session) *protocol.Session { return CloneAsDecoded(s) }

// DecodedRow is a row as stored (Data) and what Data decodes to (Value: a
// *T of the row's type, or nil while not decoded). A store never hands Value
// out: CopyDecoded gives copies.
type DecodedRow struct {
	Data  []byte
	Value any
}

// CopyDecoded is a copy of the value r keeps, when it keeps a *T. In tests
// the copy is checked against a decode of r.Data; what names the row.
func CopyDecoded[T any](what string, r DecodedRow) (v *T, ok bool, err error) {
	p, ok := r.Value.(*T)
	if !ok {
		return nil, false, nil
	}
	v = Clone(p)
	return v, true, CheckDecoded(what, r.Data, v)
}

// CheckDecoded, in tests, decodes data and fails when v, what a store keeps
// as its decoded value, differs.
func CheckDecoded[T any](what string, data []byte, v *T) error {
	if !testing.Testing() {
		return nil
	}
	var want T
	if err := json.Unmarshal(data, &want); err != nil || !reflect.DeepEqual(&want, v) {
		return fmt.Errorf("store: %s is kept decoded as %+v, its data decodes as %+v (%v)", what, v, &want, err)
	}
	return nil
}
