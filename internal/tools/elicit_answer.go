package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// The answer to an MCP server's question is checked before the server gets
// it: a known action and, for a form, content the requested schema validates,
// with each text in its format.

// resolve reads a requested schema for validation; a form is made only of a
// schema it can read.
func resolve(schema json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the requested schema cannot be read: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the requested schema cannot be used: %w", err)
	}
	return r, nil
}

// CheckElicitAnswer reads an Elicitation RTC's output and checks it against
// the question (args): a known action; for an accepted form, content that
// the requested schema validates, with each text in its format.
func CheckElicitAnswer(args, output json.RawMessage) (ElicitAnswer, error) {
	var ans ElicitAnswer
	if err := json.Unmarshal(output, &ans); err != nil {
		return ans, errors.New(`the answer is not {"action", "content"}`)
	}
	switch ans.Action {
	case "decline", "cancel":
		ans.Content = nil
		return ans, nil
	case "accept":
	default:
		return ans, fmt.Errorf("the answer's action %q is not accept, decline or cancel", ans.Action)
	}
	var a ElicitArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return ans, err
	}
	if a.Mode != ElicitForm {
		ans.Content = nil
		return ans, nil
	}
	if ans.Content == nil {
		ans.Content = map[string]any{}
	}
	if a.Schema == nil {
		return ans, errors.New("the question has no schema")
	}
	r, err := resolve(*a.Schema)
	if err != nil {
		return ans, err
	}
	// Validate sees numbers as JSON decodes them into any (float64).
	var content any
	b, _ := json.Marshal(ans.Content)
	if err := json.Unmarshal(b, &content); err != nil {
		return ans, err
	}
	if err := r.Validate(content); err != nil {
		return ans, fmt.Errorf("the answer does not fit the form: %w", err)
	}
	for _, f := range a.Fields {
		s, ok := ans.Content[f.Name].(string)
		if ok && f.Kind == FieldText && !inFormat(f.Format, s) {
			return ans, fmt.Errorf("the answer does not fit the form: %s is not a valid %s", f.Name, f.Format)
		}
	}
	return ans, nil
}

// inFormat reports whether s is a valid value of a text field's format.
func inFormat(format, s string) bool {
	switch format {
	case "email":
		addr, err := mail.ParseAddress(s)
		return err == nil && addr.Address == s
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && utf8.ValidString(s) && !strings.ContainsAny(s, " \t\n")
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	}
	return true
}
