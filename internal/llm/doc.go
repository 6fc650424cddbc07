// Package llm defines the Model interface the agent engine talks to: one streaming
// step at a time, text deltas and complete tool calls, provider-neutral messages.
//
// Implementations live in sub-packages: openai (any OpenAI-compatible Chat
// Completions server), anthropic (Messages API) and scripted (a deterministic JSON
// script for tests and the demo). A Model must be safe for concurrent use; a Stream
// is used by one goroutine. What openai and anthropic share around their own wire
// formats (client set-up, step stream and event assembly, failure mapping) is in
// llmwire.
//
// Deadlines bound a provider step: the openai and anthropic models fail a stream
// that stays silent longer than the idle timeout, or a step longer than the step
// timeout, with a retryable *Error (ErrIdleTimeout, ErrStepTimeout), so the
// runner's retries apply to a stalled provider as to a failed one. The caller's
// own cancellation still ends a step with the context's error.
package llm
