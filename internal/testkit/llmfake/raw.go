package llmfake

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// RawRequestID is the request id a ServeSSE server sends.
const RawRequestID = "req_raw"

// ServeSSE starts a server, closed when t ends, that answers every request with
// body as a text/event-stream, for wire shapes the fake Server does not produce.
// Every response carries RawRequestID in both providers' request id headers
// (x-request-id, request-id); headers returns the headers of the requests
// received so far.
func ServeSSE(t testing.TB, body string) (url string, headers func() []http.Header) {
	t.Helper()
	var mu sync.Mutex
	var seen []http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("x-request-id", RawRequestID)
		w.Header().Set("request-id", RawRequestID)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return append([]http.Header(nil), seen...)
	}
}

// Events writes named server-sent events, as Anthropic sends them: pairs of an
// event name and its data.
func Events(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", pairs[i], pairs[i+1])
	}
	return b.String()
}

// Data writes server-sent events of data lines only, as OpenAI sends them.
func Data(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "data: %s\n\n", l)
	}
	return b.String()
}
