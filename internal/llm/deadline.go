package llm

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Defaults of Deadlines.
const (
	DefaultIdleTimeout = 60 * time.Second
	DefaultStepTimeout = 10 * time.Minute
)

var (
	// ErrIdleTimeout: the provider sent nothing for the idle timeout.
	ErrIdleTimeout = errors.New("model stream idle timeout")
	// ErrStepTimeout: the step took longer than the step deadline.
	ErrStepTimeout = errors.New("model step deadline exceeded")
)

// Deadlines bound one model step, so a provider that stalls mid-stream fails the
// step with a retryable error instead of holding the turn until a user stops it.
type Deadlines struct {
	// Idle is the longest wait for the response headers and then between two
	// stream events; DefaultIdleTimeout when 0. It must exceed the longest silence
	// of a healthy model (a reasoning model may think before its first token).
	Idle time.Duration
	// Step bounds the whole step, request to last event; DefaultStepTimeout when 0.
	Step time.Duration
}

// Watch is the context of one model step: it ends when its parent does, when the
// step deadline passes, or when Touch was not called for the idle timeout.
type Watch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration
	mu     sync.Mutex
	idleT  *time.Timer
	stepT  *time.Timer
}

// Start begins watching a step under parent.
func (d Deadlines) Start(parent context.Context) *Watch {
	if d.Idle <= 0 {
		d.Idle = DefaultIdleTimeout
	}
	if d.Step <= 0 {
		d.Step = DefaultStepTimeout
	}
	ctx, cancel := context.WithCancelCause(parent)
	w := &Watch{ctx: ctx, cancel: cancel, idle: d.Idle}
	w.idleT = time.AfterFunc(d.Idle, func() { cancel(ErrIdleTimeout) })
	w.stepT = time.AfterFunc(d.Step, func() { cancel(ErrStepTimeout) })
	return w
}

// Context is what the provider's request runs under.
func (w *Watch) Context() context.Context { return w.ctx }

// Touch records progress: the idle timeout starts over.
func (w *Watch) Touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx.Err() == nil {
		w.idleT.Reset(w.idle)
	}
}

// Stop releases the timers and ends the context; call it when the step is over.
func (w *Watch) Stop() {
	w.mu.Lock()
	w.idleT.Stop()
	w.stepT.Stop()
	w.mu.Unlock()
	w.cancel(context.Canceled)
}

// Stalled returns the retryable error of a step the watch ended (idle or step
// timeout), or nil when it did not: then the parent's cancellation, if any, is the
// caller's, not the provider's fault.
func (w *Watch) Stalled(requestID string) *Error {
	cause := context.Cause(w.ctx)
	if !errors.Is(cause, ErrIdleTimeout) && !errors.Is(cause, ErrStepTimeout) {
		return nil
	}
	return &Error{Category: CategoryUnavailable, Retryable: true, RequestID: requestID, Err: cause}
}
