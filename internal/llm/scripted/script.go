package scripted

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
)

// Script is the JSON document that drives a Model (format in the package doc).
type Script struct {
	Name  string `json:"name"`
	Turns []Turn `json:"turns"`
	// Summary shapes the answers to summarisation requests; nil uses the default.
	Summary *Summary `json:"summary,omitempty"`
}

// Summary says what a summary written by the scripted model keeps.
type Summary struct {
	// Keep is a Go regexp: the summary lists every distinct match in the
	// summarised messages (the previous summary included), in order. Empty keeps
	// the previous summary's lines and the user messages.
	Keep string `json:"keep,omitempty"`
	// DelayMS is slept before every event of a summary but the first.
	DelayMS int `json:"delay_ms,omitempty"`
}

// Turn answers one user message with a sequence of steps, one per model call.
type Turn struct {
	// Match is a Go regexp tried on the last user message; empty makes the turn a
	// fallback chosen by position.
	Match string `json:"match,omitempty"`
	Steps []Step `json:"steps"`
}

// Step is the output of one model call.
type Step struct {
	// Text is streamed in word-sized pieces; ignored when Chunks is set.
	Text string `json:"text,omitempty"`
	// Chunks are streamed verbatim, one text event each.
	Chunks    []string   `json:"chunks,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// DelayMS is slept before every event but the first.
	DelayMS int `json:"delay_ms,omitempty"`
	// Error fails the stream after the text; tool calls and usage are not emitted.
	Error *StepError `json:"error,omitempty"`
}

// ToolCall is one tool call of a step.
type ToolCall struct {
	Name string `json:"name"`
	// Arguments is any JSON value, emitted compacted; "{}" when both are absent.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// RawArguments is emitted verbatim, so a script can send invalid JSON.
	RawArguments *string `json:"raw_arguments,omitempty"`
	// ArgumentChunks writes the call in this many pieces of its arguments
	// before the call comes whole, as a model streams them (0: whole only).
	ArgumentChunks int `json:"argument_chunks,omitempty"`
}

// StepError describes the *llm.Error a step fails with.
type StepError struct {
	Category  string `json:"category"`
	Retryable bool   `json:"retryable,omitempty"`
	Status    int    `json:"status,omitempty"`
	Message   string `json:"message,omitempty"`
}

var categories = map[string]bool{
	"provider_unavailable": true, "rate_limited": true, "invalid_request": true,
	"auth": true, "context_length": true, "unknown": true,
}

//go:embed demo.json
var demoJSON []byte

// Default returns the demo model used when no provider is configured.
func Default() *Model {
	m, err := Parse(demoJSON)
	if err != nil {
		// demo.json is compiled in and covered by tests, so this is a build defect.
		panic("scripted: embedded demo.json: " + err.Error())
	}
	return m
}

// DemoJSON returns a copy of the embedded demo script, e.g. as a starting point
// for a custom one.
func DemoJSON() []byte { return bytes.Clone(demoJSON) }

// Parse decodes a script; unknown fields are rejected so typos do not silently
// change what a test exercises.
func Parse(data []byte) (*Model, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scripted: decode script: %w", err)
	}
	if dec.More() {
		return nil, errors.New("scripted: decode script: trailing data after the script object")
	}
	return New(s)
}

// Load reads and parses a script file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return m, nil
}

// compiled is a validated script with its regexps ready.
type compiled struct {
	script   Script
	matchers []*regexp.Regexp // nil for match-less turns
	fallback []int            // indexes of match-less turns
	keep     *regexp.Regexp   // Summary.Keep; nil for the default summary
	finds    map[string]*regexp.Regexp
}

func compile(s Script) (*compiled, error) {
	if len(s.Turns) == 0 {
		return nil, errors.New("scripted: script has no turns")
	}
	c := &compiled{script: s, matchers: make([]*regexp.Regexp, len(s.Turns)), finds: map[string]*regexp.Regexp{}}
	if s.Summary != nil && s.Summary.DelayMS < 0 {
		return nil, errors.New("scripted: summary.delay_ms is negative")
	}
	if s.Summary != nil && s.Summary.Keep != "" {
		re, err := regexp.Compile(s.Summary.Keep)
		if err != nil {
			return nil, fmt.Errorf("scripted: summary.keep: %w", err)
		}
		c.keep = re
	}
	for ti, t := range s.Turns {
		if t.Match == "" {
			c.fallback = append(c.fallback, ti)
		} else {
			re, err := regexp.Compile(t.Match)
			if err != nil {
				return nil, fmt.Errorf("scripted: turn %d: match: %w", ti, err)
			}
			c.matchers[ti] = re
		}
		if len(t.Steps) == 0 {
			return nil, fmt.Errorf("scripted: turn %d has no steps", ti)
		}
		for si, st := range t.Steps {
			if err := validateStep(st); err != nil {
				return nil, fmt.Errorf("scripted: turn %d step %d: %w", ti, si, err)
			}
			if err := c.compileFinds(append([]string{st.Text}, st.Chunks...)); err != nil {
				return nil, fmt.Errorf("scripted: turn %d step %d: %w", ti, si, err)
			}
		}
	}
	return c, nil
}

func validateStep(st Step) error {
	if st.DelayMS < 0 {
		return errors.New("delay_ms is negative")
	}
	if st.Error != nil && !categories[st.Error.Category] {
		return fmt.Errorf("error category %q is not one of llm.Error's", st.Error.Category)
	}
	for i, tc := range st.ToolCalls {
		if tc.Name == "" {
			return fmt.Errorf("tool call %d has no name", i)
		}
		if tc.ArgumentChunks < 0 || tc.ArgumentChunks > 1000 {
			return fmt.Errorf("tool call %d: argument_chunks %d is not between 0 and 1000", i, tc.ArgumentChunks)
		}
		if tc.RawArguments != nil && len(tc.Arguments) > 0 {
			return fmt.Errorf("tool call %d has both arguments and raw_arguments", i)
		}
		if len(tc.Arguments) > 0 && !json.Valid(tc.Arguments) {
			return fmt.Errorf("tool call %d: arguments are not valid JSON", i)
		}
	}
	return nil
}

// argumentsText is what the model emits for a tool call's arguments.
func (tc ToolCall) argumentsText() json.RawMessage {
	if tc.RawArguments != nil {
		return json.RawMessage(*tc.RawArguments)
	}
	if len(tc.Arguments) == 0 {
		return json.RawMessage("{}")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, tc.Arguments); err != nil {
		// Validated at construction; keep the text rather than lose the call.
		return bytes.Clone(tc.Arguments)
	}
	return buf.Bytes()
}
