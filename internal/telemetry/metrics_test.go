package telemetry

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The tool label of a call's metrics: a built-in's name, an MCP tool's name for
// a call the server executed, and "host" for the host page's tools.
func TestToolLabels(t *testing.T) {
	at := time.Now()
	end := at.Add(20 * time.Millisecond)
	cases := []struct {
		rtc   protocol.RTC
		label string
	}{
		{protocol.RTC{ToolName: "read"}, "read"},
		{protocol.RTC{ToolName: "labels__echo", Executor: protocol.RTCExecutorServer}, "labels__echo"},
		{protocol.RTC{ToolName: "labelsAddToCart"}, "host"},
	}
	for _, c := range cases {
		before := testutil.ToFloat64(metricRTCOutcomes.WithLabelValues(c.label, protocol.RTCCompleted, protocol.DecisionAllowed))
		observeRTC(&c.rtc, &protocol.AuditRecord{ToolName: c.rtc.ToolName, Status: protocol.RTCCompleted,
			Decision: protocol.AuditDecision{Outcome: protocol.DecisionAllowed}, DeliveredAt: &at, EndedAt: &end})
		if got := testutil.ToFloat64(metricRTCOutcomes.WithLabelValues(c.label, protocol.RTCCompleted, protocol.DecisionAllowed)); got != before+1 {
			t.Errorf("%s: rtc_outcomes_total{tool=%q} went from %v to %v", c.rtc.ToolName, c.label, before, got)
		}
	}
}
