// Package llmfake runs fake OpenAI and Anthropic HTTP servers that speak the real
// streaming wire formats, so tests exercise the real SDK code paths of the
// openai and anthropic packages without a network.
//
// A Server decodes the provider's JSON request into an llm.Request, asks its
// brain (usually a scripted.Model) for a stream, and writes the brain's events as
// the provider's server-sent events:
//
//   - OpenAI (POST /v1/chat/completions, URL() ends in /v1): chat.completion.chunk
//     objects with delta.content, delta.tool_calls (id and name first, then the
//     arguments in at least two fragments), finish_reason "tool_calls" or "stop",
//     a usage chunk when stream_options.include_usage is set, then [DONE].
//   - Anthropic (POST /v1/messages, URL() is the origin): message_start, ping,
//     content_block_start/delta/stop for text (text_delta) and tool_use
//     (input_json_delta in fragments), message_delta with stop_reason and usage,
//     message_stop, each with its event: line.
//
// Guarantees, for assertions in tests:
//   - Requests returns every raw request body, failed ones included; Usage is the
//     sum of the usage the server put on the wire (nothing for failed streams).
//   - FailNext(n, status) makes the next n requests answer with that status and
//     the provider's JSON error body; every response carries a request id header
//     (x-request-id, request-id) valued req_fake_<n>.
//   - StallNext(n, after) makes the next n streams go silent after `after` events
//     of the brain, holding the connection open, as a provider that hangs mid-body.
//   - An error from the brain's Stream call becomes an HTTP error status; an error
//     from the brain's stream after it started becomes a mid-stream error event
//     (OpenAI: an {"error": ...} data object, then the stream closes; Anthropic:
//     event: error).
//   - Requests that the real APIs would reject for their transcript shape are
//     rejected with 400: OpenAI tool calls not followed by their tool messages;
//     Anthropic roles that do not alternate, tool_use blocks not answered in the
//     next message, empty text blocks, missing max_tokens.
//
// Around the servers, what the provider packages' tests share: Conformance, the
// behaviour every provider must have (configuration checks, streaming, tool
// calls, usage, errors, cut streams, deadlines), run against a Provider;
// StartScript, a server with a scripted brain; Run, Ask and MustStream to
// stream a step and Drain it into a Result; ServeSSE with Events or Data, a
// server of a fixed stream body for wire shapes the fake does not produce; and
// BodyServer with CheckOutput and ValidText for fuzzing a stream decoder.
package llmfake
