// Package openai is an llm.Model for OpenAI's Chat Completions API and every
// server that speaks it (Ollama, vLLM, llama.cpp, ... with their own BaseURL and,
// for local servers, an empty APIKey). It uses the official openai-go SDK with
// streaming, tools and stream_options.include_usage. It holds what is the Chat
// Completions API's own: the request mapping, the decoding of its chunks and the
// reading of its error objects; the client set-up, the step's stream and the
// rest of the failure mapping are llmwire's.
//
// Guarantees:
//   - Text deltas are emitted as EventText as soon as they arrive. Tool calls are
//     reassembled from their fragments and emitted as complete EventToolCall
//     events (id, name, exact arguments text, in index order) when the choice
//     finishes; the usage chunk becomes an EventUsage after them.
//   - A stream that ends without a finish_reason (a cut connection) fails with a
//     retryable provider_unavailable error instead of passing for a finished step.
//   - Failures are *llm.Error: 429 rate_limited (retryable); 408, 5xx and network
//     errors provider_unavailable (retryable); 401/403 auth; 400 mentioning the
//     context or a prompt that is too long, and 413, context_length (both are
//     cured by a shorter transcript); other 4xx invalid_request. Errors inside a started stream are classified by their
//     type and code. The x-request-id header is kept in RequestID.
//   - A cancelled ctx is returned as ctx.Err(), never as a provider error.
//   - No OPENAI_* environment variable is read: Config is the whole configuration.
package openai
