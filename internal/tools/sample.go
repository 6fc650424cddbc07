package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// An MCP server's request to use the model during a call (sampling) is an RTC
// run by the server whose tool is SamplingTool(server): the person sees what
// the server would send the model and allows it or not, and "Allow for this
// chat" is kept per server, as the approval of that name (no tool can have a
// name with ":"). Once allowed, the server runs the session's model and
// answers the server; the RTC ends with the model's answer.

const samplingPrefix = "sampling:"

// SamplingTool is the tool name of server's requests to use the model.
func SamplingTool(server string) string { return samplingPrefix + server }

// IsSampling reports whether name is the tool of a server's requests to use
// the model.
func IsSampling(name string) bool { return strings.HasPrefix(name, samplingPrefix) }

// Limits on a server's request to use the model: it is outside input, shown
// to the person and paid for by the session.
const (
	MaxSampleBytes    = 32 << 10 // the system prompt and messages
	MaxSampleTokens   = 4096     // the answer's tokens
	MaxSamplesPerCall = 5        // requests of one call
)

// SampleMessage is one message of a request to use the model.
type SampleMessage struct {
	Role string `json:"role"` // user or assistant
	Text string `json:"text"`
}

// SampleRequest is a server's request to use the model; as the RTC's
// arguments, it is what the person sees.
type SampleRequest struct {
	Server       string          `json:"server"`
	SystemPrompt string          `json:"system_prompt,omitempty"`
	Messages     []SampleMessage `json:"messages"`
	MaxTokens    int             `json:"max_tokens"`
}

// Check keeps a request within what the person can read and the session pays
// for: text messages of the user or the assistant, at most MaxSampleBytes in
// all; MaxTokens cut to MaxSampleTokens.
func (q *SampleRequest) Check() error {
	if len(q.Messages) == 0 {
		return errors.New("the request has no messages")
	}
	n := len(q.SystemPrompt)
	for _, m := range q.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("a message of role %q cannot be sent", m.Role)
		}
		n += len(m.Text)
	}
	if n > MaxSampleBytes {
		return fmt.Errorf("the request is %d bytes of text; at most %d are sent", n, MaxSampleBytes)
	}
	if q.MaxTokens <= 0 || q.MaxTokens > MaxSampleTokens {
		q.MaxTokens = MaxSampleTokens
	}
	return nil
}

// LLM is the request as the model takes it.
func (q *SampleRequest) LLM() *llm.Request {
	req := &llm.Request{System: q.SystemPrompt, MaxTokens: q.MaxTokens}
	for _, m := range q.Messages {
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(m.Role), Text: m.Text})
	}
	return req
}

// SampleResult is the model's answer to a server's request.
type SampleResult struct {
	Text  string
	Model string
}

// Sampler runs a server's request to use the model once the person allowed
// it; an error tells the server it was refused or failed, and why.
type Sampler func(ctx context.Context, q SampleRequest) (SampleResult, error)
