package client_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/client"
	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestResultRetriedAcrossServerRestart: the server is killed (SIGKILL) while a
// tool runs; the result waits in the outbox, is retried while the server is
// down, and reaches the restarted server: the turn completes with it.
func TestResultRetriedAcrossServerRestart(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(addScript), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"serve", "-addr", addr, "-data", filepath.Join(dir, "rtcagent.db"), "-token-secret", testserver.Secret,
		"-model-provider", "scripted", "-script", script, "-poll-interval", "100ms", "-lease-ttl", "2s", "-log-level", "warn", "-message-rate", "-1"}
	var cmd *exec.Cmd
	start := func() {
		cmd = exec.Command(testsvc.ServerBinary(t), args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the server", 60*time.Second, func() bool {
			resp, err := http.Get("http://" + addr + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}
	kill := func() {
		if cmd != nil {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			cmd = nil
		}
	}
	t.Cleanup(kill)
	start()

	v, _ := auth.NewVerifier([]byte(testserver.Secret))
	tok, _, _ := v.Issue("frank", time.Hour)
	serverDown, finish := make(chan struct{}), make(chan struct{})
	runs := 0
	c, err := client.New(client.Options{URL: "ws://" + addr + "/connection/websocket", Token: tok, DeviceID: "go-1",
		JournalDir: filepath.Join(dir, "journal"), WorkMode: "bypass"})
	if err != nil {
		t.Fatal(err)
	}
	tool := addTool
	tool.Run = func(context.Context, json.RawMessage) (any, error) {
		runs++
		close(serverDown)
		<-finish
		return 5, nil
	}
	if err := c.RegisterTool(tool); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	reply, err := c.Send(ctx, "", "add")
	if err != nil {
		t.Fatal(err)
	}
	<-serverDown
	kill()
	close(finish) // the result is journaled and submitted while the server is down
	time.Sleep(500 * time.Millisecond)
	start()
	res, err := reply.Wait(ctx)
	if err != nil || res.Status != protocol.TurnCompleted || res.Text != "Let me add.\n\nThe sum is 5." || runs != 1 {
		t.Fatalf("turn %+v %v, %d runs", res, err, runs)
	}
}
