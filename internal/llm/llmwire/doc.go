// Package llmwire is what the provider models (openai, anthropic) share around
// their own wire formats: the client set-up, the step's request and stream, the
// assembly of the step's events and the mapping of failures to *llm.Error.
//
// A provider keeps only what is its own: building its SDK's request from an
// llm.Request, a Decoder that turns its SDK's stream events into calls on an
// Assembler, and the classification of its SDK's API errors. Wire ties these
// together.
//
// Guarantees of every Model built on it:
//   - Config is checked and completed the same way (Model required, no negative
//     MaxTokens or MaxRetries, the provider's default base URL, an HTTP client
//     whose only timeout is for response headers); no environment variable is
//     read, and an empty APIKey sends no credential.
//   - A request that cannot be built fails with invalid_request before anything
//     is sent.
//   - Events come out in the order the decoder reported them; text deltas and
//     usage with nothing in them are left out.
//   - A stream that ends before the decoder saw the provider's finishing event
//     (a cut connection) fails with a retryable provider_unavailable error, and
//     what it held back (incomplete tool calls) is never emitted.
//   - A step the deadlines ended fails with their retryable error; a cancelled
//     or expired caller's ctx is returned as ctx.Err(), never as a provider
//     error; transport failures are retryable provider_unavailable, the rest
//     unknown. The provider's request id header is kept in every *llm.Error.
package llmwire
