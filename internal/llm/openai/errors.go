package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

// requestIDHeader carries the request id of OpenAI and most compatible servers.
const requestIDHeader = "x-request-id"

// apiError classifies what the SDK reports of a failed request or stream: an
// API error by status, type and code; an error object inside a started stream
// by its type and code; an error body the SDK could not decode by the status.
// Transport failures and other errors are left to the shared mapping.
func apiError(err error, resp *http.Response) *llm.Error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		e := classify(apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message)
		e.Status, e.RequestID, e.Err = apiErr.StatusCode, llmwire.RequestID(apiErr.Response, requestIDHeader), err
		if apiErr.Message != "" {
			e.Err = fmt.Errorf("%s: %w", apiErr.Message, err)
		}
		return e
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return midStreamError(streamErr)
	}
	if resp != nil && resp.StatusCode >= 400 {
		// The SDK could not decode the error body (some compatible servers send
		// {"error": "text"}); the status still tells what happened.
		msg := bodyMessage(resp)
		e := classify(resp.StatusCode, "", "", msg)
		e.Status, e.Err = resp.StatusCode, fmt.Errorf("openai: status %d: %s", resp.StatusCode, msg)
		return e
	}
	return nil
}

// classify maps an HTTP status, or for errors inside a 200 stream (status 0)
// the error's type and code, to a category.
func classify(status int, typ, code, message string) *llm.Error {
	if status >= 400 {
		e := llm.StatusError(status, message)
		if status == http.StatusBadRequest && code == "context_length_exceeded" {
			e.Category = llm.CategoryContextLength
		}
		return e
	}
	// An error object inside a stream that started with 200: only its type and
	// code tell what happened.
	switch {
	case code == "rate_limit_exceeded" || typ == "requests" || typ == "tokens":
		return &llm.Error{Category: llm.CategoryRateLimited, Retryable: true}
	case code == "invalid_api_key" || typ == "authentication_error":
		return &llm.Error{Category: llm.CategoryAuth}
	case code == "context_length_exceeded" || typ == "invalid_request_error" && llm.TooLong(message):
		return &llm.Error{Category: llm.CategoryContextLength}
	case typ == "invalid_request_error":
		return &llm.Error{Category: llm.CategoryInvalid}
	}
	// server_error and unknown types inside a started stream are transient on
	// every server we know.
	return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true}
}

func midStreamError(se *ssestream.StreamError) *llm.Error {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(se.Event.Data, &body)
	code, _ := body.Error.Code.(string)
	e := classify(0, body.Error.Type, code, body.Error.Message)
	msg := body.Error.Message
	if msg == "" {
		msg = "error event in stream"
	}
	e.Err = fmt.Errorf("openai: %s: %w", msg, se)
	return e
}

// bodyMessage digs the message out of an error body the SDK could not decode.
func bodyMessage(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(data, &body) == nil {
		var text string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(body.Error, &text) == nil && text != "":
			return text
		case json.Unmarshal(body.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case body.Message != "":
			return body.Message
		case body.Detail != "":
			return body.Detail
		}
	}
	text := strings.TrimSpace(string(data))
	if len(text) > 200 {
		text = strings.ToValidUTF8(text[:200], "") + "…"
	}
	return text
}
