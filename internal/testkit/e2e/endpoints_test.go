package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/web"
)

func get(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

func TestOperationalEndpoints(t *testing.T) {
	s := startServer(t, mustScript(t, writeReadScript))
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "go")
	b.waitTurn(res.TurnID, 10*time.Second)

	if code, body, _ := get(t, s.HTTP.URL+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("healthz %d %q", code, body)
	}
	if code, _, _ := get(t, s.HTTP.URL+"/readyz"); code != 200 {
		t.Fatalf("readyz %d", code)
	}
	_, metrics, _ := get(t, s.HTTP.URL+"/metrics")
	for _, want := range []string{
		`rtcagent_rpc_requests_total{code="ok",method="` + protocol.MethodRTCSubmitResult + `"}`,
		`rtcagent_model_steps_total{outcome="tools"}`,
		`rtcagent_model_steps_total{outcome="answer"}`,
		`rtcagent_inbox_items_total{kind="turn.resume",result="ok"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if code, body, _ := get(t, s.HTTP.URL+"/"); code != 200 || !strings.Contains(body, "RTC Agent") {
		t.Fatalf("demo page %d", code)
	}
	if web.Built() {
		_, _, h := get(t, s.HTTP.URL+"/sdk/sandbox.html")
		if csp := h.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox allow-scripts") {
			t.Errorf("sandbox CSP %q", csp)
		}
		_, _, h = get(t, s.HTTP.URL+"/sdk/rtc-agent.js")
		if h.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(h.Get("Content-Type"), "text/javascript") {
			t.Errorf("sdk headers %v", h)
		}
	}
	// Build metadata is never served; the dev token endpoint is off without -dev.
	for _, path := range []string{"/sdk/headers.json", "/sdk/tools.json", "/sdk/.gitkeep"} {
		if code, _, _ := get(t, s.HTTP.URL+path); code != 404 {
			t.Errorf("%s: %d", path, code)
		}
	}
	resp, err := http.Post(s.HTTP.URL+"/api/dev/token", "application/json", strings.NewReader(`{"user_id":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Fatal("dev token endpoint served without -dev")
	}
}
