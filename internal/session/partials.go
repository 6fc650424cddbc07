package session

import (
	"context"
	"sync"
)

// Partials keeps the text of messages while they stream, so a client that joins
// mid-stream gets the text so far (v1.message.get) and the seq of the last Live
// delta it contains. Only the worker streaming a message appends to it. The
// in-memory implementation serves one process; livebuf.Redis serves a cluster.
type Partials interface {
	// Append adds the delta with Live seq seq (1, 2, … in order).
	Append(ctx context.Context, messageID string, seq int64, delta string) error
	Get(ctx context.Context, messageID string) (text string, seq int64, ok bool, err error)
	Drop(ctx context.Context, messageID string) error
}

// NewMemoryPartials returns Partials held in this process's memory.
func NewMemoryPartials() Partials { return &memPartials{m: map[string]*partial{}} }

type memPartials struct {
	mu sync.Mutex
	m  map[string]*partial
}

type partial struct {
	text []byte
	seq  int64
}

func (p *memPartials) Append(_ context.Context, id string, seq int64, delta string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.m[id]
	if e == nil {
		e = &partial{}
		p.m[id] = e
	}
	e.text = append(e.text, delta...)
	e.seq = seq
	return nil
}

func (p *memPartials) Get(_ context.Context, id string) (string, int64, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.m[id]
	if e == nil {
		return "", 0, false, nil
	}
	return string(e.text), e.seq, true, nil
}

func (p *memPartials) Drop(_ context.Context, id string) error {
	p.mu.Lock()
	delete(p.m, id)
	p.mu.Unlock()
	return nil
}
