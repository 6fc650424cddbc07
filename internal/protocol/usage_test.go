package protocol

import "testing"

// A total's cost is known only when every part's is; the zero usage is neutral.
func TestUsageAddCost(t *testing.T) {
	c := func(v float64) *float64 { return &v }
	var total Usage
	total.Add(Usage{InputTokens: 10, OutputTokens: 2, CostUSD: c(0.5)})
	total.Add(Usage{})
	total.Add(Usage{InputTokens: 5, OutputTokens: 1, CostUSD: c(0.25)})
	if !total.Equal(Usage{InputTokens: 15, OutputTokens: 3, CostUSD: c(0.75)}) {
		t.Fatalf("priced total %+v", total)
	}
	total.Add(Usage{InputTokens: 1, OutputTokens: 1})
	if total.CostUSD != nil || total.InputTokens != 16 {
		t.Fatalf("a part without a price left cost %v", *total.CostUSD)
	}
	total.Add(Usage{InputTokens: 1, CostUSD: c(1)})
	if total.CostUSD != nil {
		t.Fatal("an unknown cost became known again")
	}
}
