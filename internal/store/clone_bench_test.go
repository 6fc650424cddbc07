package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// BenchmarkCloneAsDecoded copies an RTC as a commit's change carries it.
func BenchmarkCloneAsDecoded(b *testing.B) {
	at := time.Now()
	r := &protocol.RTC{ID: "01a24b60-8f28-7a6b-8c75-026ff9a1a555", SessionID: "s", TurnID: "t", UserID: "u", ToolName: "ls",
		Arguments: json.RawMessage(`{"path":"/"}`), Status: protocol.RTCPending, CreatedAt: at, UpdatedAt: at, DeadlineAt: &at,
		Audit: &protocol.AuditState{WorkMode: "edit"}}
	b.ReportAllocs()
	for b.Loop() {
		_ = store.CloneAsDecoded[protocol.Keyed](r)
	}
}
