// Package llm defines the Model interface the agent engine talks to: one streaming
// step at a time, text deltas and complete tool calls, provider-neutral messages.
//
// Implementations live in sub-packages: openai (any OpenAI-compatible Chat
// Completions server), anthropic (Messages API) and scripted (a deterministic JSON
// script for tests and the demo). A Model must be safe for concurrent use; a Stream
// is used by one goroutine.
package llm
