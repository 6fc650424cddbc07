package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Metrics of ended tool calls. Labels never carry user or session ids; the tool
// label is a built-in tool's name, the name of an MCP server's tool (a call the
// server executes: "<server>__<tool>", bounded by the -mcp-config servers and
// their tool limits) or "host" (names chosen by host pages would make the label
// set unbounded).
var (
	metricRTCRoundTrip = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "rtcagent", Name: "rtc_round_trip_seconds",
		Help:    "Time from an RTC's delivery to the browser to its end, by tool, without the time a person took to decide.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 14),
	}, []string{"tool"})
	metricHumanWait = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "rtcagent", Name: "human_wait_seconds",
		Help:    "Time a turn waited for a person: confirm (to allow or deny a call), ask_user (to answer askUser) or elicitation (to answer an MCP server's question).",
		Buckets: prometheus.ExponentialBuckets(0.5, 3, 12),
	}, []string{"kind"})
	metricRTCOutcomes = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "rtc_outcomes_total",
		Help: "Ended RTCs by tool, final status and decision (allowed, denied, timeout, cancelled, shown, or none).",
	}, []string{"tool", "status", "decision"})
	metricDropped = promauto.NewCounter(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "telemetry_dropped_total",
		Help: "Commits whose ended turns and calls were not observed (no spans or metrics) because the telemetry queue was full.",
	})
)

// builtinTools are the tool names used as metric labels as they are.
var builtinTools = map[string]bool{"ls": true, "read": true, "write": true, "edit": true, "grep": true, "find": true,
	"script": true, "askUser": true, tools.Elicitation: true}

func toolLabel(r *protocol.RTC) string {
	if builtinTools[r.ToolName] || r.Executor == protocol.RTCExecutorServer {
		return r.ToolName
	}
	return "host"
}

// observeRTC records the metrics of an RTC that ended, with its audit record.
func observeRTC(r *protocol.RTC, a *protocol.AuditRecord) {
	tool := toolLabel(r)
	decision := a.Decision.Outcome
	if decision == "" {
		decision = "none"
	}
	metricRTCOutcomes.WithLabelValues(tool, a.Status, decision).Inc()
	if a.DeliveredAt == nil || a.EndedAt == nil {
		return
	}
	total := a.EndedAt.Sub(*a.DeliveredAt)
	if d := a.Decision; a.NeedsConfirmation && d.At != nil && d.By != protocol.DecidedByWorkMode {
		human := d.At.Sub(*a.DeliveredAt)
		metricHumanWait.WithLabelValues("confirm").Observe(human.Seconds())
		total -= human
	}
	if tools.AsksPerson(a.ToolName) {
		kind := "ask_user"
		if a.ToolName == tools.Elicitation {
			kind = "elicitation"
		}
		metricHumanWait.WithLabelValues(kind).Observe(total.Seconds())
		return
	}
	if total >= 0 {
		metricRTCRoundTrip.WithLabelValues(tool).Observe(total.Seconds())
	}
}
