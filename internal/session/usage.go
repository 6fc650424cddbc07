package session

import "github.com/rtcagent/rtcagent/internal/protocol"

// price sets the cost of a step's usage from the price table; without a price
// for the model the cost stays unknown.
func (r *Runner) price(u *protocol.Usage) {
	if r.cfg.Prices == nil {
		u.CostUSD = nil
		return
	}
	u.CostUSD = r.cfg.Prices.Cost(r.cfg.Model.Name(), u.InputTokens, u.OutputTokens)
}
