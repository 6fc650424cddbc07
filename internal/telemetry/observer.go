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
// store's commits. OnCommit only queues a commit that may have ended one (it
// never waits or decodes: the store's writer calls it); one worker decodes
// the changes, reads what it needs from the store and writes. Its queue is
// bounded: when it is full, the commit's spans and metrics are dropped and
// counted.
type Observer struct {
	store  store.Store
	tracer *Tracer
	log    *slog.Logger
	queue  chan store.Commit
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
	o := &Observer{store: st, tracer: tracer, log: log.With("component", "telemetry"), queue: make(chan store.Commit, queueSize),
		stop: make(chan struct{}), done: make(chan struct{})}
	go o.run()
	return o
}

// OnCommit queues a commit that may have ended a turn or an RTC. Call it from
// the store's commit hook. An ended call is observed with the audit record the
// commit wrote for it; a call without one (a copy made by a fork) was not run
// here, so a commit whose records all are of open calls is passed over, and
// so are its turns when no tracer writes their spans.
func (o *Observer) OnCommit(c store.Commit) {
	if !o.mayEnd(c) {
		return
	}
	select {
	case o.queue <- c:
	default:
		metricDropped.Inc()
	}
}

func (o *Observer) mayEnd(c store.Commit) bool {
	for _, a := range c.Audits {
		if protocol.RTCTerminal(a.Status) {
			return true
		}
	}
	if o.tracer == nil {
		return false
	}
	for _, u := range c.Updates {
		for _, ch := range u.Changes {
			if ch.Type == protocol.UpdTurnUpdated {
				return true
			}
		}
	}
	return false
}

// observe writes the spans and metrics of what commit c ended.
func (o *Observer) observe(c store.Commit) {
	for _, u := range c.Updates {
		for _, ch := range u.Changes {
			if e, ok := o.endedBy(ch, c.Audits); ok {
				o.handle(e)
			}
		}
	}
}

// endedBy returns the turn or RTC that change ch ended, if it ended one: the
// entity this process committed, else decoded.
func (o *Observer) endedBy(ch protocol.Change, audits []*protocol.AuditRecord) (ended, bool) {
	var e ended
	switch ch.Type {
	case protocol.UpdRTCUpdated:
		r, ok := ch.Value.(*protocol.RTC)
		if !ok {
			// Most changes are of calls still open: their status decides,
			// without decoding arguments and results.
			var head struct {
				Status string `json:"status"`
			}
			if json.Unmarshal(ch.Data, &head) != nil || !protocol.RTCTerminal(head.Status) {
				return e, false
			}
			if r = new(protocol.RTC); json.Unmarshal(ch.Data, r) != nil {
				return e, false
			}
		}
		if !protocol.RTCTerminal(r.Status) {
			return e, false
		}
		for _, a := range audits {
			if a.RTCID == r.ID {
				e.audit = a // the last one written
			}
		}
		if e.audit == nil {
			return e, false
		}
		e.rtc = r
	case protocol.UpdTurnUpdated:
		if o.tracer == nil {
			return e, false
		}
		t, ok := ch.Value.(*protocol.Turn)
		if !ok {
			if t = new(protocol.Turn); json.Unmarshal(ch.Data, t) != nil {
				return e, false
			}
		}
		if !protocol.TurnTerminal(t.Status) || t.TraceParent == "" {
			return e, false
		}
		e.turn = t
	default:
		return e, false
	}
	return e, true
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
		case c := <-o.queue:
			o.observe(c)
		case <-o.stop:
			for {
				select {
				case c := <-o.queue:
					o.observe(c)
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
