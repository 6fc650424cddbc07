package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// mapError turns an SDK or transport error into an *llm.Error, except that a
// cancelled or expired ctx is returned as ctx.Err(): the caller stopped the step,
// the provider did not fail.
func mapError(ctx context.Context, err error, resp *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		id := requestID(apiErr.Response)
		if id == "" {
			id = requestID(resp)
		}
		e := classify(apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message)
		e.Status, e.RequestID, e.Err = apiErr.StatusCode, id, err
		if apiErr.Message != "" {
			e.Err = fmt.Errorf("%s: %w", apiErr.Message, err)
		}
		return e
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return midStreamError(streamErr, resp)
	}
	if resp != nil && resp.StatusCode >= 400 {
		// The SDK could not decode the error body (some compatible servers send
		// {"error": "text"}); the status still tells what happened.
		msg := bodyMessage(resp)
		e := classify(resp.StatusCode, "", "", msg)
		e.Status, e.RequestID = resp.StatusCode, requestID(resp)
		e.Err = fmt.Errorf("openai: status %d: %s", resp.StatusCode, msg)
		return e
	}
	if llm.IsNetworkError(err) {
		return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true, RequestID: requestID(resp), Err: err}
	}
	return &llm.Error{Category: llm.CategoryUnknown, RequestID: requestID(resp), Err: err}
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
	lower := strings.ToLower(message)
	switch {
	case code == "rate_limit_exceeded" || typ == "requests" || typ == "tokens":
		return &llm.Error{Category: llm.CategoryRateLimited, Retryable: true}
	case code == "invalid_api_key" || typ == "authentication_error":
		return &llm.Error{Category: llm.CategoryAuth}
	case code == "context_length_exceeded" ||
		typ == "invalid_request_error" && (strings.Contains(lower, "context") || strings.Contains(lower, "too long")):
		return &llm.Error{Category: llm.CategoryContextLength}
	case typ == "invalid_request_error":
		return &llm.Error{Category: llm.CategoryInvalid}
	}
	// server_error and unknown types inside a started stream are transient on
	// every server we know.
	return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true}
}

func midStreamError(se *ssestream.StreamError, resp *http.Response) error {
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
	e.RequestID = requestID(resp)
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

func requestID(resp *http.Response) string {
	if resp == nil {
		return ""
	}
	return resp.Header.Get("x-request-id")
}
