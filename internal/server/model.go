package server

import (
	"fmt"
	"os"
	"strings"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/anthropic"
	"github.com/rtcagent/rtcagent/internal/llm/openai"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/pricing"
)

// promptAndPrices reads the system prompt (flag, file or built-in) and the price
// table (built-in, extended by the configured file).
func promptAndPrices(c config.Config) (string, pricing.Table, error) {
	system := c.System
	if c.SysFile != "" {
		data, err := os.ReadFile(c.SysFile)
		if err != nil {
			return "", nil, fmt.Errorf("system prompt: %w", err)
		}
		system = strings.TrimSpace(string(data))
	}
	if system == "" {
		system = DefaultSystemPrompt
	}
	prices, err := pricing.Load(c.Prices)
	return system, prices, err
}

// newModel builds the configured model. The SDKs do not retry (MaxRetries 0): the
// session runner retries transient errors itself, with one policy for every
// provider and without repeating text already streamed.
// A stalled stream fails the step with a retryable error at the idle or step
// timeout, so the same retries apply.
func newModel(c config.Config) (llm.Model, error) {
	d := llm.Deadlines{Idle: c.ModelIdle, Step: c.ModelStep}
	switch c.Provider {
	case "openai":
		return openai.New(openai.Config{BaseURL: c.OpenAIURL, APIKey: c.OpenAIKey, Model: c.OpenAIMdl, MaxTokens: c.MaxTokens, MaxRetries: 0, Deadlines: d})
	case "anthropic":
		return anthropic.New(anthropic.Config{BaseURL: c.AnthURL, APIKey: c.AnthKey, Model: c.AnthMdl, MaxTokens: c.MaxTokens, MaxRetries: 0, Deadlines: d})
	case "scripted":
		if c.Script != "" {
			return scripted.Load(c.Script)
		}
		return scripted.Default(), nil
	}
	return nil, fmt.Errorf("unknown model provider %q", c.Provider)
}

// DefaultSystemPrompt tells the model where its tools run.
const DefaultSystemPrompt = `You are an assistant embedded in a website. Your tools run in the user's browser: ` +
	`a virtual file system (ls, read, write, edit, grep, find), a JavaScript sandbox (script), questions to the user ` +
	`(askUser), and functions the website registers. The user sees every tool call and may decline it. ` +
	`Work step by step, one tool call at a time when later calls depend on earlier results, and answer in Markdown.`
