// Package pricing turns token usage into US dollars with a price table: built-in
// prices for a few common models, extended or overridden by a JSON file
// (-prices). A model without a price has an unknown cost (nil), never zero, so a
// missing price cannot pass for a free model. Tables are read-only after loading
// and safe for concurrent use.
package pricing
