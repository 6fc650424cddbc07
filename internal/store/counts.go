package store

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// ExportCount makes v, a count a store keeps for the whole process, the
// Prometheus counter rtcagent_<subsystem>_<name>.
func ExportCount(subsystem, name, help string, v *atomic.Int64) {
	promauto.NewCounterFunc(prometheus.CounterOpts{Namespace: "rtcagent", Subsystem: subsystem, Name: name, Help: help},
		func() float64 { return float64(v.Load()) })
}
