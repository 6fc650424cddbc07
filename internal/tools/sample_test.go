package tools_test

import (
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/tools"
)

// A request to use the model is text of the user or the assistant within
// MaxSampleBytes; its answer's tokens are cut to MaxSampleTokens; its tool
// name says whose it is, and is no tool's.
func TestSampleRequestCheck(t *testing.T) {
	ok := tools.SampleRequest{Server: "s", SystemPrompt: "be brief", Messages: []tools.SampleMessage{{Role: "user", Text: "hi"}}, MaxTokens: 1 << 20}
	if err := ok.Check(); err != nil || ok.MaxTokens != tools.MaxSampleTokens {
		t.Fatalf("%v, max tokens %d", err, ok.MaxTokens)
	}
	if req := ok.LLM(); req.System != "be brief" || len(req.Messages) != 1 || req.Messages[0].Text != "hi" || req.MaxTokens != tools.MaxSampleTokens {
		t.Fatalf("as the model takes it: %+v", req)
	}
	for name, q := range map[string]tools.SampleRequest{
		"no messages":      {Server: "s"},
		"a system message": {Server: "s", Messages: []tools.SampleMessage{{Role: "system", Text: "x"}}},
		"too long":         {Server: "s", Messages: []tools.SampleMessage{{Role: "user", Text: strings.Repeat("x", tools.MaxSampleBytes+1)}}},
	} {
		if err := q.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if name := tools.SamplingTool("files"); name != "sampling:files" || !tools.IsSampling(name) || tools.IsSampling("files__read") {
		t.Fatalf("%q", name)
	}
}
