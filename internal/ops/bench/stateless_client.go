package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// statelessClient is the baseline's browser: it holds the conversation as UI
// messages and, like useChat with client-side tools (onToolCall, addToolOutput
// and sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls), runs
// the calls a response delivers and then POSTs the whole conversation again,
// the new results included. Its HTTP transport counts the bytes it sends.
type statelessClient struct {
	url  string
	hc   *http.Client
	up   *upstream
	msgs []uiMessage
	n    int
	tool func() string // the output of every call
}

func newStatelessClient(url string, tool func() string) *statelessClient {
	up := &upstream{}
	tr := &http.Transport{DialContext: up.dial, MaxIdleConnsPerHost: 1, IdleConnTimeout: time.Minute}
	return &statelessClient{url: url, up: up, tool: tool, hc: &http.Client{Transport: tr}}
}

func (c *statelessClient) close() { c.hc.CloseIdleConnections() }

// turn sends a user message and answers tool calls until the assistant answers
// without one; it returns the number of calls it ran.
func (c *statelessClient) turn(ctx context.Context, text string) (int, error) {
	c.n++
	c.msgs = append(c.msgs, uiMessage{ID: fmt.Sprintf("u%d", c.n), Role: "user", Parts: []uiPart{{Type: "text", Text: text}}})
	calls := 0
	for range 100 {
		ran, err := c.post(ctx)
		if err != nil {
			return calls, err
		}
		if ran == 0 {
			return calls, nil
		}
		calls += ran
	}
	return calls, errors.New("stateless: no answer after 100 requests")
}

// post sends the conversation, applies the streamed response to the last
// assistant message, runs the calls it delivered and returns their number.
func (c *statelessClient) post(ctx context.Context) (int, error) {
	body, err := json.Marshal(chatRequest{ID: "chat", Messages: c.msgs, Trigger: "submit-message"})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("stateless: status %s", resp.Status)
	}
	var am *uiMessage
	var text *uiPart
	var open []int // indexes of the parts whose calls this response delivered
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			break
		}
		var ch chunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return 0, fmt.Errorf("stateless: chunk %q: %w", data, err)
		}
		switch ch.Type {
		case "start":
			if n := len(c.msgs); c.msgs[n-1].Role == "assistant" && c.msgs[n-1].ID == ch.MessageID {
				am = &c.msgs[n-1]
			} else {
				c.msgs = append(c.msgs, uiMessage{ID: ch.MessageID, Role: "assistant"})
				am = &c.msgs[len(c.msgs)-1]
			}
		case "start-step":
			am.Parts = append(am.Parts, uiPart{Type: "step-start"})
		case "text-start":
			am.Parts = append(am.Parts, uiPart{Type: "text"})
			text = &am.Parts[len(am.Parts)-1]
		case "text-delta":
			if text != nil {
				text.Text += ch.Delta
			}
		case "text-end":
			text = nil
		case "tool-input-available":
			am.Parts = append(am.Parts, uiPart{Type: toolPrefix + ch.ToolName, ToolCallID: ch.ToolCallID, State: "input-available", Input: ch.Input})
			open = append(open, len(am.Parts)-1)
			text = nil // parts may have moved
		case "error":
			return 0, fmt.Errorf("stateless: %s", ch.ErrorText)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if am == nil {
		return 0, errors.New("stateless: response without a message")
	}
	for _, i := range open {
		out, err := json.Marshal(c.tool())
		if err != nil {
			return 0, err
		}
		p := &am.Parts[i]
		p.State, p.Output = "output-available", out
	}
	return len(open), nil
}
