package mcptools

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// lineGuard reads a stdio server's newline-delimited JSON-RPC messages and
// passes on those of at most limit bytes. The SDK's reader gives up at a line
// over its own limit (16 MiB) and the connection ends with it, failing every
// call in flight; here a longer message is read to its end without being kept
// and an answer is replaced by an error answer to the same request, so that
// one call fails alone, with a message that says why, and the connection
// stays. A longer request or notification from the server is left out.
//
// Each Read returns bytes of one line only, so the SDK's decoder never reads
// ahead into the next message.
type lineGuard struct {
	src   *bufio.Reader
	limit int
	log   *slog.Logger
	// take sees each line before the SDK reads it; a line it takes (an answer
	// to a request sent beside the SDK, side.go) is not passed on.
	take func(line []byte) bool
	buf  []byte
	out  []byte // what is left of the line being passed on
	err  error  // the source's error, returned once out is empty
}

func newLineGuard(src io.Reader, limit int, log *slog.Logger, take func([]byte) bool) *lineGuard {
	return &lineGuard{src: bufio.NewReaderSize(src, 64<<10), limit: limit, log: log, take: take}
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.out, g.err = g.next()
		if g.take != nil && len(g.out) > 0 && g.take(g.out) {
			g.out = nil
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// next reads the next line, with its newline.
func (g *lineGuard) next() ([]byte, error) {
	if cap(g.buf) > 1<<20 {
		g.buf = nil // a big line's buffer is not kept for the small ones
	}
	g.buf = g.buf[:0]
	for {
		chunk, err := g.src.ReadSlice('\n')
		if len(g.buf)+len(chunk) > g.limit {
			return g.skip(chunk, err)
		}
		g.buf = append(g.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return g.buf, err
	}
}

// skip reads the rest of a line over the limit, keeping only what identifies
// the message, and returns what replaces it.
func (g *lineGuard) skip(chunk []byte, err error) ([]byte, error) {
	var f frameID
	f.feed(g.buf)
	size := len(g.buf)
	for {
		f.feed(chunk)
		size += len(chunk)
		if err != bufio.ErrBufferFull {
			break
		}
		chunk, err = g.src.ReadSlice('\n')
	}
	id, ok := f.answerID()
	g.log.Warn("message from the MCP server over the limit left out", "bytes", size, "limit", g.limit, "answer_to", string(id))
	if !ok {
		return nil, err
	}
	msg := fmt.Sprintf("the server's answer is %d bytes, more than the %d bytes this client reads; it was left out", size, g.limit)
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32603, "message": msg}})
	return append(line, '\n'), err
}

// frameID follows the top level of one JSON-RPC message, read in pieces, for
// its "id" and whether it has a "method" (a request or notification rather
// than an answer). It keeps only those, whatever the order of the members.
type frameID struct {
	depth    int  // nesting outside strings; 1 inside the message's object
	obj      bool // the message is an object (not a batch)
	st       int  // at depth 1: what comes next
	inStr    bool
	esc      bool
	inKey    bool
	key      []byte // the current top-level key, its first bytes
	inID     bool   // reading the id's value
	id       []byte
	idTooBig bool
	method   bool
}

const (
	expectKey = iota
	expectColon
	expectValue
	inValue
	maxIDBytes = 256
)

func (f *frameID) feed(b []byte) {
	for _, c := range b {
		f.step(c)
	}
}

// answerID is the message's id when it is an answer with a usable id.
func (f *frameID) answerID() (json.RawMessage, bool) {
	if !f.obj || f.method || f.idTooBig || len(f.id) == 0 || !json.Valid(f.id) {
		return nil, false
	}
	return json.RawMessage(f.id), true
}

func (f *frameID) step(c byte) {
	if f.inStr {
		f.stepString(c)
		return
	}
	if f.inID { // a number (or another literal) as the id
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			f.inID = false
		default:
			f.addID(c)
			return
		}
	}
	top := f.depth == 1 && f.obj
	switch c {
	case '"':
		f.inStr = true
		switch {
		case top && f.st == expectKey:
			f.inKey, f.key = true, f.key[:0]
		case top && f.st == expectValue:
			f.st = inValue
			if string(f.key) == "id" {
				f.startID(c)
			}
		}
	case '{', '[':
		if f.depth == 0 {
			f.obj = c == '{'
		}
		if top && f.st == expectValue {
			f.st = inValue
		}
		f.depth++
	case '}', ']':
		f.depth--
	case ':':
		if top && f.st == expectColon {
			f.st = expectValue
			f.method = f.method || string(f.key) == "method"
		}
	case ',':
		if top {
			f.st = expectKey
		}
	case ' ', '\t', '\r', '\n':
	default:
		if top && f.st == expectValue {
			f.st = inValue
			if string(f.key) == "id" {
				f.startID(c)
			}
		}
	}
}

func (f *frameID) stepString(c byte) {
	if f.inID {
		f.addID(c)
	}
	switch {
	case f.esc:
		f.esc = false
	case c == '\\':
		f.esc = true
	case c == '"':
		f.inStr, f.inID = false, false
		if f.inKey {
			f.inKey, f.st = false, expectColon
		}
	case f.inKey && len(f.key) < 16:
		f.key = append(f.key, c)
	}
}

// startID begins the id's value; a repeated "id" replaces the earlier one, as
// in the SDK's decoding.
func (f *frameID) startID(c byte) {
	f.inID, f.id, f.idTooBig = true, f.id[:0], false
	f.addID(c)
}

func (f *frameID) addID(c byte) {
	if len(f.id) >= maxIDBytes {
		f.idTooBig = true
		return
	}
	f.id = append(f.id, c)
}
