package agui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// threadSpace is the namespace of the session ids derived from thread ids.
var threadSpace = uuid.MustParse("5b0e4c2a-7d1f-4a53-9c3e-0a6f1d2b8e47")

// ThreadSession is the id of the session that holds a user's AG-UI thread:
// derived from both, so a thread id names a different session for every user
// and the same one on every node, without a table.
func ThreadSession(userID, threadID string) string {
	return uuid.NewSHA1(threadSpace, []byte(userID+"\x00"+threadID)).String()
}

// clientID is the idempotency key of what an AG-UI client sent once: the
// thread's message or tool call id, hashed to a bounded length.
func clientID(kind, threadID, id string) string {
	h := sha256.Sum256([]byte(threadID + "\x00" + id))
	return "ag-ui:" + kind + ":" + hex.EncodeToString(h[:16])
}

// resultPrefix starts the client_id of a result an AG-UI client submitted.
const resultPrefix = "ag-ui:result:"

// check bounds the input: ids present and short, text UTF-8.
func (in *RunInput) check(lim protocol.Limits) error {
	for name, v := range map[string]string{"threadId": in.ThreadID, "runId": in.RunID} {
		switch {
		case v == "":
			return protocol.Errorf(protocol.CodeInvalidArgument, "%s is required", name)
		case len(v) > lim.IDBytes || !utf8.ValidString(v):
			return protocol.Errorf(protocol.CodeInvalidArgument, "%s: at most %d bytes of UTF-8", name, lim.IDBytes)
		}
	}
	for i, m := range in.Messages {
		if m.ID == "" || len(m.ID) > lim.IDBytes {
			return protocol.Errorf(protocol.CodeInvalidArgument, "messages[%d].id: 1 to %d bytes", i, lim.IDBytes)
		}
	}
	return nil
}

// hostTools are the client's tools as host tools of the turn. The client runs
// them and its own UI asks the person where it wants to, so the server asks
// no confirmation.
func (in *RunInput) hostTools() []protocol.HostTool {
	var ts []protocol.HostTool
	for _, t := range in.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		ts = append(ts, protocol.HostTool{Name: t.Name, Description: t.Description, Parameters: params, Approval: protocol.ApprovalNever})
	}
	return ts
}

// agentMD is the run's context as instructions for the model, or "".
func (in *RunInput) agentMD() string {
	var b strings.Builder
	for _, c := range in.Context {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", strings.TrimSpace(c.Description), c.Value)
	}
	return strings.TrimSpace(b.String())
}

// newUserMessage is the input's last message when it is a user message: what
// the client asks now (sent once, by its id).
func (in *RunInput) newUserMessage() (Message, bool) {
	if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == "user" {
		return in.Messages[n-1], true
	}
	return Message{}, false
}

// messageClientID is the idempotency key of the input's new message, or "".
func (in *RunInput) messageClientID() string {
	if m, ok := in.newUserMessage(); ok {
		return clientID("message", in.ThreadID, m.ID)
	}
	return ""
}

// text is a message's content as text: a string, or the text parts of a list.
func (m Message) text() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", protocol.Errorf(protocol.CodeInvalidArgument, "message %q: content is neither text nor a list of parts", m.ID)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", protocol.Errorf(protocol.CodeInvalidArgument, "message %q: only text parts are supported, not %q", m.ID, p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// output is a tool message's content as an RTC's output: JSON content as it
// is, other text as a JSON string.
func output(text string) json.RawMessage {
	if t := strings.TrimSpace(text); json.Valid([]byte(t)) && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(text)
	return b
}

// outputText is an RTC's output as a tool message's content: a JSON string's
// text, other JSON as it is.
func outputText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	return string(out)
}

// conversation is the user and assistant texts of messages in order: what a
// client must already show for the server to skip a MESSAGES_SNAPSHOT.
func conversation(ms []Message) []string {
	var c []string
	for _, m := range ms {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		t, _ := m.text()
		if m.Role == "assistant" && t == "" {
			continue
		}
		c = append(c, m.Role+"\x00"+t)
	}
	return c
}
