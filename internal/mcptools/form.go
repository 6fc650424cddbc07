package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// An elicitation is shown to the person as an askUser form: one question per
// field of the requested schema (a flat object of primitive properties). An enum
// string or a boolean is a multiple-choice question; a free string, number or
// integer is a question without options (only its text field).

// MaxFormFields is the most fields of an elicitation the askUser form can show.
const MaxFormFields = 4

// MaxFormBytes caps the form's arguments (the message, labels and choices as
// JSON): an MCP server is outside input, and its question is stored as an RTC
// and sent to every tab of the person.
const MaxFormBytes = 8 << 10

// FormQuestion is one question of the askUser form, in its arguments' shape.
type FormQuestion struct {
	Question string       `json:"question"`
	Header   string       `json:"header,omitempty"`
	Options  []FormOption `json:"options,omitempty"`
}

// FormOption is one choice of a question.
type FormOption struct {
	Label string `json:"label"`
}

// Form is an elicitation mapped onto askUser questions.
type Form struct {
	Questions []FormQuestion
	fields    []formField
}

type formField struct {
	name, kind string // kind: enum, boolean, string, number, integer
	enum       []string
}

const (
	yesLabel = "Yes"
	noLabel  = "No"
)

type propSchema struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Enum        []any  `json:"enum"`
}

// NewForm maps an elicitation's message and requested schema onto askUser
// questions. A schema the form cannot show (not a flat object of primitive
// properties, more than MaxFormFields fields, an enum of other than 2-4 string
// values) is an error.
func NewForm(message string, schema json.RawMessage) (*Form, error) {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the requested schema is not a JSON object: %w", err)
	}
	if s.Type != "object" || len(s.Properties) == 0 {
		return nil, errors.New("the requested schema is not an object with properties")
	}
	if len(s.Properties) > MaxFormFields {
		return nil, fmt.Errorf("the requested schema has %d fields; the form shows at most %d", len(s.Properties), MaxFormFields)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	message = oneLine(message)
	f := &Form{}
	for _, n := range names {
		var p propSchema
		if err := json.Unmarshal(s.Properties[n], &p); err != nil {
			return nil, fmt.Errorf("field %q: %w", n, err)
		}
		ff := formField{name: n, kind: p.Type}
		q := FormQuestion{Question: message, Header: n}
		label := oneLine(p.Title)
		if label == "" {
			label = oneLine(p.Description)
		}
		if label == "" {
			label = n
		}
		switch {
		case message == "":
			q.Question = label
		case len(s.Properties) > 1:
			q.Question = message + " — " + label
		}
		switch {
		case p.Type == "string" && len(p.Enum) > 0:
			if len(p.Enum) < 2 || len(p.Enum) > 4 {
				return nil, fmt.Errorf("field %q has %d choices; the form shows 2-4", n, len(p.Enum))
			}
			ff.kind = "enum"
			for _, v := range p.Enum {
				str, ok := v.(string)
				if !ok || oneLine(str) != str || str == "" {
					return nil, fmt.Errorf("field %q has a choice that is not a one-line string", n)
				}
				ff.enum = append(ff.enum, str)
				q.Options = append(q.Options, FormOption{Label: str})
			}
		case p.Type == "boolean":
			q.Options = []FormOption{{Label: yesLabel}, {Label: noLabel}}
		case p.Type == "string", p.Type == "number", p.Type == "integer":
		default:
			return nil, fmt.Errorf("field %q of type %q cannot be shown in the form", n, p.Type)
		}
		f.fields = append(f.fields, ff)
		f.Questions = append(f.Questions, q)
	}
	if n := len(f.Arguments()); n > MaxFormBytes {
		return nil, fmt.Errorf("the question is %d bytes as a form; at most %d are shown", n, MaxFormBytes)
	}
	return f, nil
}

// Arguments are the askUser call's arguments for the form.
func (f *Form) Arguments() json.RawMessage {
	b, _ := json.Marshal(map[string]any{"questions": f.Questions})
	return b
}

// Content reads the askUser output (the browser's "The user answered:" text, one
// "A: " line per question in order) back into the elicitation's content. An
// answer that does not fit its field is an error.
func (f *Form) Content(output json.RawMessage) (map[string]any, error) {
	var text string
	if err := json.Unmarshal(output, &text); err != nil {
		return nil, errors.New("the answer is not text")
	}
	var answers []string
	for _, line := range strings.Split(text, "\n") {
		if a, ok := strings.CutPrefix(line, "A: "); ok {
			answers = append(answers, a)
		}
	}
	if len(answers) != len(f.fields) {
		return nil, fmt.Errorf("%d answers to %d questions", len(answers), len(f.fields))
	}
	content := map[string]any{}
	for i, fd := range f.fields {
		a := answers[i]
		if a == "(no answer)" {
			continue
		}
		a = strings.TrimPrefix(a, "(other) ")
		switch fd.kind {
		case "enum":
			found := false
			for _, v := range fd.enum {
				if strings.EqualFold(v, a) {
					content[fd.name], found = v, true
				}
			}
			if !found {
				return nil, fmt.Errorf("field %q: %q is not one of the choices", fd.name, a)
			}
		case "boolean":
			switch strings.ToLower(a) {
			case "yes", "true":
				content[fd.name] = true
			case "no", "false":
				content[fd.name] = false
			default:
				return nil, fmt.Errorf("field %q: %q is not yes or no", fd.name, a)
			}
		case "number":
			v, err := strconv.ParseFloat(a, 64)
			if err != nil {
				return nil, fmt.Errorf("field %q: %q is not a number", fd.name, a)
			}
			content[fd.name] = v
		case "integer":
			v, err := strconv.ParseInt(a, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("field %q: %q is not an integer", fd.name, a)
			}
			content[fd.name] = v
		default:
			content[fd.name] = a
		}
	}
	return content, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
