package llmfake

import (
	"context"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
)

// StartScript starts a fake server with start (NewOpenAI, NewAnthropic) whose
// brain is the scripted model of script; the server is closed when t ends.
func StartScript(t testing.TB, start func(brain llm.Model) *Server, script string) (*scripted.Model, *Server) {
	t.Helper()
	brain, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := start(brain)
	t.Cleanup(srv.Close)
	return brain, srv
}

// MustStream starts req on m and fails t if Stream returns an error.
func MustStream(t testing.TB, m llm.Model, req *llm.Request) llm.Stream {
	t.Helper()
	st, err := m.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Run streams req on m to its end; an error from Stream itself is the Result's
// Err, since the llm.Model contract allows either place.
func Run(ctx context.Context, m llm.Model, req *llm.Request) Result {
	st, err := m.Stream(ctx, req)
	if err != nil {
		return Result{Err: err}
	}
	return Drain(st)
}

// Ask runs one step of the user message text, without tools, on m.
func Ask(ctx context.Context, m llm.Model, text string) Result {
	return Run(ctx, m, &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}})
}
