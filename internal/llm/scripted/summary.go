package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// stateMark begins the line of a scripted summary that records where the
// summarised conversation stood.
const stateMark = "[scripted-state "

// state is where the summarised conversation stood: its user messages, the
// last one, and the assistant messages after it.
type state struct {
	Users int    `json:"users"`
	Step  int    `json:"step"`
	User  string `json:"user"`
}

// splitSummaryBlock splits a user message that starts with a summary block into
// the summary and the text after the block (a provider that merges consecutive
// user messages puts the next user message there).
func splitSummaryBlock(text string) (body, rest string, ok bool) {
	if !strings.HasPrefix(text, llm.SummaryOpen) {
		return "", "", false
	}
	body = strings.TrimPrefix(text, llm.SummaryOpen)
	if i := strings.LastIndex(body, llm.SummaryClose); i >= 0 {
		body, rest = body[:i], body[i+len(llm.SummaryClose):]
	}
	return strings.TrimSpace(body), strings.TrimSpace(rest), true
}

func parseState(body string) (state, bool) {
	i := strings.LastIndex(body, stateMark)
	if i < 0 {
		return state{}, false
	}
	var st state
	dec := json.NewDecoder(strings.NewReader(body[i+len(stateMark):]))
	return st, dec.Decode(&st) == nil
}

// summaryLines are the lines of a summary body other than the state line.
func summaryLines(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, stateMark) {
			out = append(out, l)
		}
	}
	return out
}

// planSummary answers a summarisation request: the lines the script keeps, then
// the state line that lets later requests continue the script where the
// summarised conversation stood.
func (m *Model) planSummary(ctx context.Context, req *llm.Request) *stream {
	covered := summarised(req.Messages)
	f := readFacts(&llm.Request{Messages: covered})
	var lines []string
	seen := map[string]bool{}
	add := func(l string) {
		if l != "" && !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	for _, msg := range covered {
		body, rest, isSummary := splitSummaryBlock(msg.Text)
		switch {
		case m.c.keep != nil:
			text := msg.Text
			if isSummary {
				text = strings.Join(append(summaryLines(body), rest), "\n")
			}
			for _, match := range m.c.keep.FindAllString(text, -1) {
				add(match)
			}
		case isSummary:
			for _, l := range summaryLines(body) {
				add(l)
			}
			if rest != "" {
				add("user: " + oneLine(rest))
			}
		case msg.Role == llm.RoleUser:
			add("user: " + oneLine(msg.Text))
		}
	}
	st, _ := json.Marshal(state{Users: f.users, Step: f.stepIndex, User: f.lastUser})
	text := strings.Join(append(lines, stateMark+string(st)+"]"), "\n")
	s := &stream{ctx: ctx}
	if m.c.script.Summary != nil {
		s.delay = time.Duration(m.c.script.Summary.DelayMS) * time.Millisecond
	}
	out := s.addText(splitWords(text))
	s.addUsage(readFacts(req).inputChars, out)
	return s
}

// summarised drops the request's closing ask (llm.SummaryAsk), also when a
// provider merged it into the user message before it.
func summarised(msgs []llm.Message) []llm.Message {
	if len(msgs) == 0 {
		return nil
	}
	last := msgs[len(msgs)-1]
	i := strings.Index(last.Text, llm.SummaryAsk)
	if last.Role != llm.RoleUser || i < 0 {
		return msgs
	}
	out := append([]llm.Message(nil), msgs[:len(msgs)-1]...)
	if before := strings.TrimSpace(last.Text[:i]); before != "" {
		out = append(out, llm.Message{Role: llm.RoleUser, Text: before})
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// findPattern matches a {{find:REGEXP}} template; the regexp may not contain "}}".
var findPattern = regexp.MustCompile(`\{\{find:(.+?)\}\}`)

// compileFinds validates the {{find:…}} templates of a step's texts.
func (c *compiled) compileFinds(texts []string) error {
	for _, t := range texts {
		for _, sub := range findPattern.FindAllStringSubmatch(t, -1) {
			re, err := regexp.Compile(sub[1])
			if err != nil {
				return fmt.Errorf("{{find:%s}}: %w", sub[1], err)
			}
			c.finds[sub[1]] = re
		}
	}
	return nil
}

// expandFinds replaces each {{find:REGEXP}} with the distinct matches of REGEXP in
// the texts of the request's messages, in order, joined by commas.
func (c *compiled) expandFinds(text string, req *llm.Request) string {
	return findPattern.ReplaceAllStringFunc(text, func(tpl string) string {
		re := c.finds[findPattern.FindStringSubmatch(tpl)[1]]
		if re == nil {
			return tpl
		}
		var out []string
		seen := map[string]bool{}
		for _, msg := range req.Messages {
			for _, match := range re.FindAllString(msg.Text, -1) {
				if !seen[match] {
					seen[match] = true
					out = append(out, match)
				}
			}
		}
		return strings.Join(out, ",")
	})
}
