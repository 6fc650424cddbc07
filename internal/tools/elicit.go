package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// An MCP server's question to the person during a call (an elicitation) is
// an RTC of its own tool, Elicitation, which the model never sees or calls.
// Its arguments (ElicitArgs) say which server asks and either the form to
// fill, one field per property of the requested schema, or the link to open.
// The browser answers with an ElicitAnswer as the call's output; the server
// checks it against the schema (CheckElicitAnswer) before it records it, and
// the MCP server gets it only then.

// Elicitation is the tool name of an MCP server's question to the person.
const Elicitation = "elicitation"

// AsksPerson reports whether a call of tool name puts a question to the
// person (askUser, an elicitation): its time is a person's, not a tool's.
func AsksPerson(name string) bool { return name == "askUser" || name == Elicitation }

// Elicitation modes.
const (
	ElicitForm = "form" // fill in fields
	ElicitURL  = "url"  // open a link, outside the chat
)

// Field kinds of an elicitation form.
const (
	FieldText    = "text"    // a string; Format email, uri, date or date-time
	FieldNumber  = "number"  // a number within Minimum and Maximum
	FieldInteger = "integer" // an integer within Minimum and Maximum
	FieldBoolean = "boolean" // yes or no
	FieldChoice  = "choice"  // one of Options
	FieldChoices = "choices" // any of Options (an array of their values)
)

// Limits on an MCP server's question: it is outside input, stored as an RTC
// and sent to every tab of the person.
const (
	MaxFormFields  = 64       // fields of one form
	MaxFormOptions = 100      // options of one field
	MaxFormBytes   = 64 << 10 // the question's arguments as JSON
	MaxURLBytes    = 2048     // the link of a URL question
)

// FormOption is one choice of a choice field: the value the server gets and
// the title the person reads (the value when the schema gives none).
type FormOption struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// FormField is one field of an elicitation form, read from one property of
// the requested schema; the browser renders it without reading the schema.
type FormField struct {
	Name        string          `json:"name"`
	Kind        string          `json:"kind"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Format      string          `json:"format,omitempty"`
	MinLength   *int            `json:"min_length,omitempty"`
	MaxLength   *int            `json:"max_length,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	MinItems    *int            `json:"min_items,omitempty"`
	MaxItems    *int            `json:"max_items,omitempty"`
	Options     []FormOption    `json:"options,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
}

// ElicitArgs are the arguments of an Elicitation RTC.
type ElicitArgs struct {
	Server  string `json:"server"`
	Mode    string `json:"mode"`
	Message string `json:"message"`
	// Form mode: the fields in the schema's order, and the schema itself,
	// against which the answer is checked.
	Fields []FormField      `json:"fields,omitempty"`
	Schema *json.RawMessage `json:"schema,omitempty"`
	// URL mode: the link, opened only when the person clicks it.
	URL string `json:"url,omitempty"`
}

// ElicitAnswer is an Elicitation RTC's output: "accept" (a form's content,
// or the person opened the link), "decline" or "cancel".
type ElicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// NewElicitForm reads an elicitation's requested schema into the form the
// person fills, its fields in order (the properties' names as the server wrote
// them; the schema's own order when order is not a permutation of them). A
// schema the form cannot show (not a flat object of the primitive properties
// the MCP specification allows, or past the limits) is an error that says why.
func NewElicitForm(server, message string, schema json.RawMessage, order []string) (*ElicitArgs, error) {
	var root struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("the requested schema is not a JSON object: %w", err)
	}
	if root.Type != "object" || len(root.Properties) == 0 {
		return nil, errors.New("the requested schema is not an object with properties")
	}
	if len(root.Properties) > MaxFormFields {
		return nil, fmt.Errorf("the requested schema has %d fields; a form shows at most %d", len(root.Properties), MaxFormFields)
	}
	if _, err := resolve(schema); err != nil {
		return nil, err
	}
	required := map[string]bool{}
	for _, n := range root.Required {
		required[n] = true
	}
	a := &ElicitArgs{Server: server, Mode: ElicitForm, Message: message}
	names := PropertyOrder(schema)
	if len(order) == len(root.Properties) && allIn(order, root.Properties) {
		names = order
	}
	for _, name := range names {
		f, err := formField(name, root.Properties[name])
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
		f.Required = required[name]
		a.Fields = append(a.Fields, f)
	}
	raw := json.RawMessage(schema)
	a.Schema = &raw
	if n := len(a.JSON()); n > MaxFormBytes {
		return nil, fmt.Errorf("the question is %d bytes as a form; at most %d are shown", n, MaxFormBytes)
	}
	return a, nil
}

// NewElicitURL is a question that asks the person to open link, an http or
// https URL without credentials.
func NewElicitURL(server, message, link string) (*ElicitArgs, error) {
	if len(link) > MaxURLBytes {
		return nil, fmt.Errorf("the link is %d bytes; at most %d are shown", len(link), MaxURLBytes)
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, errors.New("the link is not an http or https URL without credentials")
	}
	a := &ElicitArgs{Server: server, Mode: ElicitURL, Message: message, URL: u.String()}
	if n := len(a.JSON()); n > MaxFormBytes {
		return nil, fmt.Errorf("the question is %d bytes; at most %d are shown", n, MaxFormBytes)
	}
	return a, nil
}

// JSON is the RTC's arguments.
func (a *ElicitArgs) JSON() json.RawMessage {
	b, _ := json.Marshal(a)
	return b
}

type enumEntry struct {
	Const *string `json:"const"`
	Title string  `json:"title"`
}

type propSchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []enumEntry     `json:"oneOf"`
	Default     json.RawMessage `json:"default"`
	Items       *struct {
		Type  string      `json:"type"`
		Enum  []any       `json:"enum"`
		AnyOf []enumEntry `json:"anyOf"`
	} `json:"items"`
}

func formField(name string, raw json.RawMessage) (FormField, error) {
	var p propSchema
	if err := json.Unmarshal(raw, &p); err != nil {
		return FormField{}, err
	}
	f := FormField{Name: name, Title: p.Title, Description: p.Description, Default: p.Default}
	var err error
	switch {
	case p.Type == "string" && len(p.Enum) > 0:
		f.Kind = FieldChoice
		f.Options, err = enumOptions(p.Enum, p.EnumNames)
	case p.Type == "string" && len(p.OneOf) > 0:
		f.Kind = FieldChoice
		f.Options, err = titledOptions(p.OneOf)
	case p.Type == "string":
		f.Kind, f.MinLength, f.MaxLength = FieldText, p.MinLength, p.MaxLength
		switch p.Format {
		case "", "email", "uri", "date", "date-time":
			f.Format = p.Format
		default:
			return f, fmt.Errorf("format %q cannot be shown", p.Format)
		}
	case p.Type == "number" || p.Type == "integer":
		f.Kind, f.Minimum, f.Maximum = p.Type, p.Minimum, p.Maximum
	case p.Type == "boolean":
		f.Kind = FieldBoolean
	case p.Type == "array" && p.Items != nil:
		f.Kind, f.MinItems, f.MaxItems = FieldChoices, p.MinItems, p.MaxItems
		switch {
		case len(p.Items.Enum) > 0:
			f.Options, err = enumOptions(p.Items.Enum, nil)
		case len(p.Items.AnyOf) > 0:
			f.Options, err = titledOptions(p.Items.AnyOf)
		default:
			err = errors.New("a list without choices cannot be shown")
		}
	default:
		return f, fmt.Errorf("type %q cannot be shown", p.Type)
	}
	return f, err
}

func enumOptions(values []any, names []string) ([]FormOption, error) {
	if len(values) > MaxFormOptions {
		return nil, fmt.Errorf("%d choices; a field shows at most %d", len(values), MaxFormOptions)
	}
	if len(names) > 0 && len(names) != len(values) {
		return nil, fmt.Errorf("%d choices but %d names", len(values), len(names))
	}
	out := make([]FormOption, len(values))
	for i, v := range values {
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("a choice is not a string")
		}
		out[i] = FormOption{Value: s}
		if len(names) > 0 {
			out[i].Title = names[i]
		}
	}
	return out, nil
}

func titledOptions(entries []enumEntry) ([]FormOption, error) {
	if len(entries) > MaxFormOptions {
		return nil, fmt.Errorf("%d choices; a field shows at most %d", len(entries), MaxFormOptions)
	}
	out := make([]FormOption, len(entries))
	for i, e := range entries {
		if e.Const == nil {
			return nil, errors.New("a titled choice has no const")
		}
		out[i] = FormOption{Value: *e.Const, Title: e.Title}
	}
	return out, nil
}

// PropertyOrder is the names of the schema's properties in the order the
// server wrote them (a Go map has none), each once.
func PropertyOrder(schema json.RawMessage) []string {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		var skip json.RawMessage
		if err != nil || dec.Decode(&skip) != nil {
			return names
		}
		if name, _ := t.(string); !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

func allIn(names []string, props map[string]json.RawMessage) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if _, ok := props[n]; !ok || seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}
