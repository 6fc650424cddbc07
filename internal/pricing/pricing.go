package pricing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// Table maps model names to prices. A key is either a model as the server names
// it ("openai:gpt-4o-mini") or the provider's model id alone ("gpt-4o-mini").
type Table map[string]Price

// defaults are list prices at the time of writing; check your provider's and
// override them with a file.
var defaults = Table{
	"gpt-4o-mini":       {0.15, 0.60},
	"gpt-4o":            {2.50, 10.00},
	"gpt-4.1":           {2.00, 8.00},
	"gpt-4.1-mini":      {0.40, 1.60},
	"gpt-4.1-nano":      {0.10, 0.40},
	"claude-sonnet-4-5": {3.00, 15.00},
	"claude-haiku-4-5":  {1.00, 5.00},
}

// Default returns a copy of the built-in table.
func Default() Table { return maps.Clone(defaults) }

// Load returns the built-in table with the entries of the JSON file at path
// added or replacing them: {"model": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}.
// An empty path returns the built-in table.
func Load(path string) (Table, error) {
	t := Default()
	if path == "" {
		return t, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var file Table
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("prices %s: %w", path, err)
	}
	for name, p := range file {
		if name == "" || p.InputPerMTok < 0 || p.OutputPerMTok < 0 || math.IsNaN(p.InputPerMTok+p.OutputPerMTok) || math.IsInf(p.InputPerMTok+p.OutputPerMTok, 0) {
			return nil, fmt.Errorf("prices %s: model %q: prices must be finite and not negative", path, name)
		}
		t[name] = p
	}
	return t, nil
}

// Lookup finds the price of a model by its full name, then by the part after
// the provider prefix.
func (t Table) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	if _, id, found := strings.Cut(model, ":"); found {
		p, ok := t[id]
		return p, ok
	}
	return Price{}, false
}

// Cost is the price of the tokens, or nil when the model has no price.
func (t Table) Cost(model string, input, output int64) *float64 {
	p, ok := t.Lookup(model)
	if !ok {
		return nil
	}
	c := float64(input)*p.InputPerMTok/1e6 + float64(output)*p.OutputPerMTok/1e6
	return &c
}
