package session

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Metrics of the session workers. Labels never carry user or session ids.
var (
	metricSteps = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "model_steps_total",
		Help: "Model steps by outcome: tools (suspended or continued on tool calls), answer, error, stopped.",
	}, []string{"outcome"})
	metricStepSeconds = promauto.NewHistogram(prometheus.HistogramOpts{
		Namespace: "rtcagent", Name: "model_step_seconds",
		Help:    "Duration of one model step, request to last event.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
	})
	metricInboxItems = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "inbox_items_total",
		Help: "Inbox items processed, by kind and result (ok, retry, given_up, lease_lost).",
	}, []string{"kind", "result"})
	metricCompactions = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "compactions_total",
		Help: "Summaries of a session's history started, by trigger: auto (context past the threshold) or requested (v1.session.compact).",
	}, []string{"trigger"})
	metricTranscripts = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "transcript_loads_total",
		Help: "Transcripts loaded for a model step, by source: cache (brought up to date from updates) or store (read whole).",
	}, []string{"source"})
	metricCatchUps = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "transcript_catch_ups_total",
		Help: "Cached transcripts brought up to date with stored updates, by source: feed (updates this process committed, in memory) or store (read back).",
	}, []string{"source"})
	metricActive = promauto.NewGauge(prometheus.GaugeOpts{
		Namespace: "rtcagent", Name: "sessions_active",
		Help: "Sessions this process works on (model steps, server-side tools), at most rtcagent_sessions_active_limit; others wait for one to end.",
	})
	metricActiveLimit = promauto.NewGauge(prometheus.GaugeOpts{
		Namespace: "rtcagent", Name: "sessions_active_limit",
		Help: "Sessions this process works on at once at most (-active-sessions).",
	})
	metricWaiting = promauto.NewGauge(prometheus.GaugeOpts{
		Namespace: "rtcagent", Name: "sessions_waiting",
		Help: "Sessions whose drain waits in this process for a free slot (in a cluster only those this node claimed, holding no lease: the others wait in the database for any node).",
	})
	metricExpired = promauto.NewCounter(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "rtc_timeouts_total",
		Help: "RTCs the server ended because their deadline passed.",
	})
)

var metricStepTokens = promauto.NewHistogramVec(prometheus.HistogramOpts{
	Namespace: "rtcagent", Name: "model_step_tokens",
	Help:    "Tokens of one model step as the provider reported them, by direction: input or output.",
	Buckets: prometheus.ExponentialBuckets(16, 4, 10),
}, []string{"direction"})

// observeStep records one model call: its duration and, when it succeeded, its
// tokens.
func observeStep(d time.Duration, u protocol.Usage, err error) {
	metricStepSeconds.Observe(d.Seconds())
	if err != nil {
		return
	}
	if u.InputTokens > 0 {
		metricStepTokens.WithLabelValues("input").Observe(float64(u.InputTokens))
	}
	if u.OutputTokens > 0 {
		metricStepTokens.WithLabelValues("output").Observe(float64(u.OutputTokens))
	}
}
