package sqlitestore

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

// The writer's statements convert their arguments as database/sql does
// (its default converter, which the driver leaves in place): for what the
// store sends and for what a careless caller might.
func TestExecArgConvertsAsDatabaseSQL(t *testing.T) {
	type name string
	var nilBytes []byte
	var nilPtr *int64
	seven := int64(7)
	for _, v := range []any{nil, int64(-3), 7, int32(5), uint8(9), uint64(math.MaxInt64), 1.5, true, "x\u2028<&>", "\xff",
		[]byte(`{"a":1}`), nilBytes, json.RawMessage(`{"b": 2}`), json.RawMessage(nil), name("n"), &seven, nilPtr,
		time.Unix(1, 2).UTC(), sql.NullString{String: "s", Valid: true}, sql.NullInt64{}} {
		want, werr := sqldriver.DefaultParameterConverter.ConvertValue(v)
		got, gerr := execArg(v)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%T %v: converted to %#v (%v), database/sql gives %#v (%v)", v, v, got, gerr, want, werr)
		}
	}
	for _, v := range []any{uint64(math.MaxUint64), struct{}{}, []int{1}} {
		if _, err := execArg(v); err == nil {
			t.Errorf("%T %v: converted, database/sql refuses it", v, v)
		}
	}
}
