package reach

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

var (
	errDown    = errors.New("connection refused")
	errRefused = errors.New("password authentication failed")
	quiet      = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func isDown(err error) bool { return errors.Is(err, errDown) }

func TestWaitTriesAgainWhileUnreachable(t *testing.T) {
	attempts := 0
	err := Wait(context.Background(), quiet, "backend", func() error {
		if attempts++; attempts < 3 {
			return errDown
		}
		return nil
	}, isDown)
	if err != nil || attempts != 3 {
		t.Fatalf("err %v after %d attempts, want nil after 3", err, attempts)
	}
}

func TestWaitStopsAtARefusal(t *testing.T) {
	attempts := 0
	err := Wait(context.Background(), quiet, "backend", func() error { attempts++; return errRefused }, isDown)
	if !errors.Is(err, errRefused) || attempts != 1 {
		t.Fatalf("err %v after %d attempts, want the refusal after 1", err, attempts)
	}
}

func TestWaitEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	err := Wait(ctx, quiet, "backend", func() error { return errDown }, isDown)
	if !errors.Is(err, errDown) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the last failure and the context's end", err)
	}
}
