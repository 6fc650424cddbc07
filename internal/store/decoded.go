package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// DecodedRTC is r as its stored JSON decodes: the entity's fields and its
// audit state.
func DecodedRTC(r *protocol.RTC) *protocol.RTC {
	v := CloneAsDecoded(r)
	v.Audit = CloneAsDecoded(r.Audit)
	return v
}

// DecodedTurn is t as its stored JSON decodes: the entity's fields and its
// checkpoint.
func DecodedTurn(t *protocol.Turn) *protocol.Turn {
	v := CloneAsDecoded(t)
	v.Checkpoint = CloneAsDecoded(t.Checkpoint)
	return v
}

// DecodedSession is s as its stored JSON decodes.
func DecodedSession(s *protocol.Session) *protocol.Session { return CloneAsDecoded(s) }

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
