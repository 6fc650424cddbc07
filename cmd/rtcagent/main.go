// Command rtcagent runs the RTC Agent server.
//
//	rtcagent serve [flags]   run the server (see -help for flags and environment)
//	rtcagent bench [flags]   measure an in-process server under load (docs/benchmarks.md)
//	rtcagent chaos [flags]   kill and restart servers under load and check the invariants (docs/reliability.md)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/ops/auditexport"
	"github.com/rtcagent/rtcagent/internal/ops/bench"
	"github.com/rtcagent/rtcagent/internal/ops/chaos"
	"github.com/rtcagent/rtcagent/internal/server"
)

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "bench" {
		os.Exit(bench.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) >= 2 && os.Args[1] == "audit" {
		os.Exit(auditexport.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) >= 2 && os.Args[1] == "chaos" {
		os.Exit(chaos.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: rtcagent serve|bench|chaos|audit [flags]   (rtcagent serve -help lists the flags)")
		os.Exit(2)
	}
	cfg, err := config.Parse(os.Args[2:], os.Getenv)
	if code, stop := parseOutcome(err, os.Stderr); stop {
		os.Exit(code)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level(cfg.LogLevel)}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv, err := server.New(ctx, cfg, log, server.Options{})
	if err != nil {
		log.Error("start", "err", err)
		os.Exit(1)
	}
	if err := srv.ListenAndServe(ctx); err != nil {
		log.Error("serve", "err", err)
		os.Exit(1)
	}
}

// parseOutcome says whether serve stops after parsing its flags, and with which
// exit code: 0 after -help (the flags were listed), 2 on a bad flag or setting.
func parseOutcome(err error, stderr io.Writer) (code int, stop bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	default:
		fmt.Fprintln(stderr, "rtcagent:", err)
		return 2, true
	}
}

func level(s string) slog.Level {
	var l slog.Level
	if l.UnmarshalText([]byte(s)) != nil {
		return slog.LevelInfo
	}
	return l
}
