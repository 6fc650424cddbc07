package pricing

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCostLooksUpFullNameThenModelID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(path, []byte(`{"openai:house-model": {"input_per_mtok": 2, "output_per_mtok": 8}, "gpt-4o-mini": {"input_per_mtok": 1, "output_per_mtok": 1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Cost("openai:house-model", 1_000_000, 500_000); c == nil || *c != 6 {
		t.Fatalf("house model: %v", c)
	}
	if c := tab.Cost("openai:gpt-4o-mini", 2_000_000, 0); c == nil || *c != 2 {
		t.Fatalf("overridden default: %v", c)
	}
	if c := tab.Cost("anthropic:claude-sonnet-4-5", 1_000_000, 1_000_000); c == nil || *c != 18 {
		t.Fatalf("built-in price: %v", c)
	}
	if c := tab.Cost("scripted:demo", 10, 10); c != nil {
		t.Fatalf("a model without a price costs %v, want unknown", *c)
	}
}

func TestLoadRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"negative.json": `{"m": {"input_per_mtok": -1, "output_per_mtok": 1}}`,
		"unknown.json":  `{"m": {"input": 1}}`,
		"syntax.json":   `{"m": `,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}
