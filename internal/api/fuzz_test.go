package api

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

type idleRunner struct{}

func (idleRunner) CancelTurn(string)                    {}
func (idleRunner) Partial(string) (string, int64, bool) { return "", 0, false }
func (idleRunner) Adopt(store.Tx) (func(bool), error)   { return nil, nil }
func (idleRunner) SettlePartials([]string)              {}
func (idleRunner) LiveText(context.Context, string) lifecycle.Live {
	return nil
}

// FuzzCall feeds arbitrary params to every method: nothing panics, and every
// failure is a client error with a stable code, never an internal one.
func FuzzCall(f *testing.F) {
	st, err := sqlitestore.Open(context.Background(), filepath.Join(f.TempDir(), "fuzz.db"), sqlitestore.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	a := New(st, idleRunner{}, protocol.Limits{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var methods []string
	for m := range a.methods {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	seeds := []string{`{}`, `{"client_id":"c","content":{"text":"hi"}}`, `{"session_id":"x"}`, `{"rtc_id":"r","client_id":"c","ok":true,"output":{"a":1}}`,
		`{"since_offset":-1}`, `{"cursor":"9"}`, `[]`, `null`, `{"tools":[{"name":"a","parameters":[]}]}`, `{"status":"executing","rtc_id":"r","client_id":"c"}`,
		`{"session_id":"x","instruction":"keep names"}`, `{"session_id":"x","turn_id":"t","client_id":"c"}`,
		`{"client_id":"c","content":{"text":"hi"},"context":{"agent_md":"# rules"}}`}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		m := methods[int(which)%len(methods)]
		res, perr := a.Call(context.Background(), core.Caller{UserID: "fuzz", DeviceID: "d"}, m, params)
		if perr == nil && res == nil {
			t.Fatalf("%s: neither result nor error", m)
		}
		if perr != nil && (perr.Code == protocol.CodeInternal || perr.Message == "") {
			t.Fatalf("%s(%q): %+v", m, params, perr)
		}
	})
}
