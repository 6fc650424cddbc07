package pgstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/store"
)

// The rows kept decoded stay within their bounds: by count and by text; a
// row too long to keep is not kept, nor one with no text (a value that did not
// encode), whose read must fail to decode.
func TestDecodedRowsBounded(t *testing.T) {
	var d decodedRows
	for i := range maxDecodedRows + 10 {
		d.put(store.RowKey{Kind: "turn", ID: fmt.Sprint(i)}, []byte(`{}`), i)
	}
	if n := len(d.m); n > maxDecodedRows {
		t.Fatalf("%d rows kept, bound %d", n, maxDecodedRows)
	}
	row := []byte(`"` + strings.Repeat("x", maxDecodedRow/2) + `"`)
	for i := range 2 * maxDecodedRowBytes / len(row) {
		d.put(store.RowKey{Kind: "rtc", ID: fmt.Sprint(i)}, row, i)
	}
	if d.bytes > maxDecodedRowBytes+len(row) {
		t.Fatalf("%d bytes of text kept, bound %d", d.bytes, maxDecodedRowBytes)
	}
	long := []byte(`"` + strings.Repeat("x", maxDecodedRow) + `"`)
	d.put(store.RowKey{Kind: "rtc", ID: "long"}, long, 1)
	if _, ok := d.get(store.RowKey{Kind: "rtc", ID: "long"}, long); ok {
		t.Fatal("a row longer than the bound was kept")
	}
	d.put(store.RowKey{Kind: "rtc", ID: "empty"}, nil, 1)
	if _, ok := d.get(store.RowKey{Kind: "rtc", ID: "empty"}, []byte{}); ok {
		t.Fatal("a row with no text was kept")
	}
	if _, ok := d.get(store.RowKey{Kind: "rtc", ID: "1"}, []byte(`"other text"`)); ok {
		t.Fatal("a row was found for other text")
	}
}
