package mcptools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFormMapsSchema: each primitive field of a requested schema becomes one
// question (enum and boolean with options, free text without), and the
// browser's answer text is read back into content of the schema's types.
func TestFormMapsSchema(t *testing.T) {
	schema := `{"type":"object","properties":{
	  "colour":{"type":"string","enum":["red","blue"]},
	  "ok":{"type":"boolean","title":"Proceed?"},
	  "count":{"type":"integer","description":"How many"},
	  "note":{"type":"string"}}}`
	f, err := NewForm("Set up\nthe job", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := []FormQuestion{
		{Question: "Set up the job — colour", Header: "colour", Options: []FormOption{{"red"}, {"blue"}}},
		{Question: "Set up the job — How many", Header: "count"},
		{Question: "Set up the job — note", Header: "note"},
		{Question: "Set up the job — Proceed?", Header: "ok", Options: []FormOption{{"Yes"}, {"No"}}},
	}
	if !reflect.DeepEqual(f.Questions, want) {
		t.Fatalf("questions %+v", f.Questions)
	}
	out, _ := json.Marshal("The user answered:\nQ: a\nA: blue\nQ: b\nA: (other) 3\nQ: c\nA: (other) fine, thanks\nQ: d\nA: No")
	got, err := f.Content(out)
	if err != nil {
		t.Fatal(err)
	}
	if w := map[string]any{"colour": "blue", "count": int64(3), "note": "fine, thanks", "ok": false}; !reflect.DeepEqual(got, w) {
		t.Fatalf("content %#v", got)
	}
	bad, _ := json.Marshal("The user answered:\nQ: a\nA: (other) green\nQ: b\nA: (other) 3\nQ: c\nA: x\nQ: d\nA: Yes")
	if _, err := f.Content(bad); err == nil || !strings.Contains(err.Error(), "not one of the choices") {
		t.Fatalf("an answer outside the enum: %v", err)
	}
	short, _ := json.Marshal("The user answered:\nQ: a\nA: red")
	if _, err := f.Content(short); err == nil {
		t.Fatal("too few answers accepted")
	}
}

// TestFormRefusesSchemas: a schema the form cannot show is an error, not a form.
func TestFormRefusesSchemas(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["1","2","3","4","5"]}}}`,
		`{"type":"object","properties":{"a":{"type":"array"}}}`,
		`{"type":"object"}`,
		`[1]`,
	} {
		if f, err := NewForm("q", json.RawMessage(s)); err == nil {
			t.Errorf("%s: form %+v", s, f)
		}
	}
	// A server's question too large to show (a message, a title or a choice) is
	// refused, not stored and sent to the person's tabs.
	big := strings.Repeat("x", MaxFormBytes)
	for _, c := range []struct{ msg, schema string }{
		{big, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"", `{"type":"object","properties":{"a":{"type":"string","title":"` + big + `"}}}`},
		{"q", `{"type":"object","properties":{"a":{"type":"string","enum":["` + big + `","b"]}}}`},
	} {
		if f, err := NewForm(c.msg, json.RawMessage(c.schema)); err == nil {
			t.Errorf("a form of %d bytes was made", len(f.Arguments()))
		}
	}
}
