package chaos

import (
	"math/rand/v2"
	"sync"
	"time"
)

// rng is a seeded source shared by goroutines.
type rng struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newRNG(seed int64, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(uint64(seed), stream))}
}

// chance is true with probability p.
func (g *rng) chance(p float64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.Float64() < p
}

func (g *rng) intn(n int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.IntN(n)
}

// dur is uniform in [lo, hi).
func (g *rng) dur(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return lo + time.Duration(g.r.Int64N(int64(hi-lo)))
}
