package reach

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Pauses between attempts: the first, doubled up to the last.
const (
	firstPause = 100 * time.Millisecond
	maxPause   = 5 * time.Second
)

// Wait runs connect until it succeeds or fails for a reason other than
// unreachable, pausing between attempts; what names the backend in the log.
func Wait(ctx context.Context, log *slog.Logger, what string, connect func() error, unreachable func(error) bool) error {
	pause := firstPause
	for attempt := 1; ; attempt++ {
		err := connect()
		if err == nil || !unreachable(err) {
			if err == nil && attempt > 1 {
				log.Info(what+" reachable", "attempts", attempt)
			}
			return err
		}
		log.Warn(what+" unreachable, waiting for it", "attempt", attempt, "retry_in", pause, "err", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up waiting: %w)", err, ctx.Err())
		case <-time.After(pause):
		}
		pause = min(2*pause, maxPause)
	}
}
