package telemetry

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Observer writes the spans and metrics of turns and RTCs that ended, from the
// store's commits. OnCommit only queues (it never waits); one worker reads what
// it needs from the store and writes. Its queue is bounded: when it is full,
// the span of an ended call or turn is dropped and counted.
type Observer struct {
	store  store.Store
	tracer *Tracer
	log    *slog.Logger
	queue  chan ended
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// ended is a turn or an RTC that reached a terminal status.
type ended struct {
	turn  *protocol.Turn
	rtc   *protocol.RTC
	audit *protocol.AuditRecord
}

const queueSize = 4096

// NewObserver starts an observer; tracer may be nil (metrics only).
func NewObserver(st store.Store, tracer *Tracer, log *slog.Logger) *Observer {
	if log == nil {
		log = slog.Default()
	}
	o := &Observer{store: st, tracer: tracer, log: log.With("component", "telemetry"), queue: make(chan ended, queueSize),
		stop: make(chan struct{}), done: make(chan struct{})}
	go o.run()
	return o
}

// OnCommit notes the turns and RTCs a commit ended. Call it from the store's
// commit hook. An ended call is observed with the audit record the commit
// wrote for it; a call without one (a copy made by a fork) was not run here.
func (o *Observer) OnCommit(c store.Commit) {
	for _, u := range c.Updates {
		for _, ch := range u.Changes {
			o.noteChange(ch, c.Audits)
		}
	}
}

func (o *Observer) noteChange(ch protocol.Change, audits []*protocol.AuditRecord) {
	var e ended
	switch ch.Type {
	case protocol.UpdRTCUpdated:
		// Most changes are of calls still open: their id and status decide,
		// without decoding arguments and results.
		var head struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if json.Unmarshal(ch.Data, &head) != nil || !protocol.RTCTerminal(head.Status) {
			return
		}
		for _, a := range audits {
			if a.RTCID == head.ID {
				e.audit = a // the last one written
			}
		}
		var r protocol.RTC
		if e.audit == nil || json.Unmarshal(ch.Data, &r) != nil {
			return
		}
		e.rtc = &r
	case protocol.UpdTurnUpdated:
		if o.tracer == nil {
			return
		}
		var t protocol.Turn
		if json.Unmarshal(ch.Data, &t) != nil || !protocol.TurnTerminal(t.Status) || t.TraceParent == "" {
			return
		}
		e.turn = &t
	default:
		return
	}
	select {
	case o.queue <- e:
	default:
		metricDropped.Inc()
	}
}

// Close writes what is queued and stops.
func (o *Observer) Close() {
	o.once.Do(func() { close(o.stop) })
	<-o.done
}

func (o *Observer) run() {
	defer close(o.done)
	for {
		select {
		case e := <-o.queue:
			o.handle(e)
		case <-o.stop:
			for {
				select {
				case e := <-o.queue:
					o.handle(e)
				default:
					return
				}
			}
		}
	}
}

func (o *Observer) handle(e ended) {
	if e.turn != nil {
		o.tracer.turnSpan(e.turn)
		return
	}
	var turnParent string
	if o.tracer != nil && e.rtc.TraceParent != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := o.store.Read(ctx, func(tx store.Tx) error {
			t, err := tx.TurnGet(e.rtc.TurnID)
			if err == nil {
				turnParent = t.TraceParent
			}
			return err
		})
		if err != nil {
			o.log.Warn("read the turn of an ended call", "rtc", e.rtc.ID, "err", err)
			return
		}
	}
	a := e.audit
	observeRTC(e.rtc, a)
	o.tracer.rtcSpans(e.rtc, a, turnParent)
}
