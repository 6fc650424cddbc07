// Package anthropic is an llm.Model for Anthropic's Messages API, using the
// official anthropic-sdk-go with streaming and tool use. It holds what is the
// Messages API's own: the request and transcript mapping, the decoding of its
// stream events and the reading of its error types; the client set-up, the
// step's stream and the rest of the failure mapping are llmwire's.
//
// Guarantees:
//   - text_delta events are emitted as EventText as soon as they arrive; a
//     tool_use block becomes one EventToolCall at its content_block_stop, with
//     the input_json_delta fragments concatenated exactly ("{}" when the tool
//     streamed no input); message_start and message_delta usage become
//     EventUsage, input tokens counting cached ones too.
//   - The transcript is mapped to what the API accepts: tool messages become
//     tool_result blocks of a user turn, consecutive turns of one role are merged
//     (so several tool results travel in one user message, before any text),
//     empty text is left out, and a stored tool call whose arguments are not a
//     JSON object is sent with input {}.
//   - A stream that ends without message_stop (a cut connection) fails with a
//     retryable provider_unavailable error instead of passing for a finished step.
//   - Failures are *llm.Error: 429 rate_limited (retryable); 408, 5xx (529
//     overloaded included) and network errors provider_unavailable (retryable);
//     401/403 auth; 400 about a prompt that is too long, and 413,
//     context_length; other 4xx invalid_request. Error events inside a started
//     stream are classified by their type. The request-id header is kept.
//   - A cancelled ctx is returned as ctx.Err(), never as a provider error.
//   - No ANTHROPIC_* environment variable or profile is read: Config is the
//     whole configuration.
package anthropic
