package api

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var (
	metricRequests = promauto.NewCounterVec(prometheus.CounterOpts{
		Namespace: "rtcagent", Name: "rpc_requests_total",
		Help: "v1 method calls by method and result code (ok or an error code).",
	}, []string{"method", "code"})
	metricSeconds = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "rtcagent", Name: "rpc_seconds",
		Help:    "Duration of v1 method calls.",
		Buckets: prometheus.ExponentialBuckets(0.0002, 2.5, 12),
	}, []string{"method"})
)
