package llmfake

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// testDeadlines: a stream that goes silent mid-body fails with a retryable error
// once the idle timeout passes, a step longer than its deadline likewise, and a
// healthy stream is not cut by either.
func testDeadlines(t *testing.T, p Provider) {
	env := func(t *testing.T, d llm.Deadlines) (*Server, llm.Model) {
		t.Helper()
		_, srv, m := startFake(t, p, 0, d)
		return srv, m
	}
	t.Run("StallMidBody", func(t *testing.T) {
		srv, m := env(t, llm.Deadlines{Idle: 300 * time.Millisecond})
		srv.StallNext(1, 1)
		t0 := time.Now()
		r := stream(t, m, context.Background(), "hello")
		took := time.Since(t0)
		me := wantError(t, r.Err, llm.CategoryUnavailable, true)
		if !errors.Is(me, llm.ErrIdleTimeout) || me.RequestID == "" {
			t.Fatalf("err = %v (request id %q), want the idle timeout with a request id", me, me.RequestID)
		}
		if r.Text == "" || !strings.HasPrefix("Let me look at two files.", r.Text) || len(r.ToolCalls) != 0 {
			t.Fatalf("before the stall: text %q, calls %v", r.Text, r.ToolCalls)
		}
		t.Logf("stalled stream failed after %v (idle timeout 300ms)", took)
		if took > 10*time.Second {
			t.Fatalf("stalled stream took %v to fail", took)
		}
	})
	t.Run("StallAfterHeaders", func(t *testing.T) {
		srv, m := env(t, llm.Deadlines{Idle: 300 * time.Millisecond})
		srv.StallNext(1, 0)
		me := wantError(t, stream(t, m, context.Background(), "hello").Err, llm.CategoryUnavailable, true)
		if !errors.Is(me, llm.ErrIdleTimeout) {
			t.Fatalf("err = %v, want the idle timeout", me)
		}
	})
	t.Run("StepDeadline", func(t *testing.T) {
		// The slow turn sends a chunk, then waits a minute: within the idle
		// timeout, beyond the step deadline.
		_, m := env(t, llm.Deadlines{Idle: time.Hour, Step: 400 * time.Millisecond})
		me := wantError(t, stream(t, m, context.Background(), "slow").Err, llm.CategoryUnavailable, true)
		if !errors.Is(me, llm.ErrStepTimeout) {
			t.Fatalf("err = %v, want the step deadline", me)
		}
	})
	t.Run("HealthyStreamNotCut", func(t *testing.T) {
		_, m := env(t, llm.Deadlines{Idle: 2 * time.Second, Step: 10 * time.Second})
		for range 3 {
			if r := stream(t, m, context.Background(), "hello"); r.Err != nil || len(r.ToolCalls) != 2 {
				t.Fatalf("healthy stream: %+v", r)
			}
		}
	})
	t.Run("CallerCancelIsNotAStall", func(t *testing.T) {
		srv, m := env(t, llm.Deadlines{Idle: time.Hour})
		srv.StallNext(1, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		r := stream(t, m, ctx, "hello")
		var me *llm.Error
		if !errors.Is(r.Err, context.DeadlineExceeded) || errors.As(r.Err, &me) {
			t.Fatalf("Err = %v (%T), want the caller's context error itself", r.Err, r.Err)
		}
	})
}
