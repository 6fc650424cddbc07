package bench

import (
	"context"
	"net"
	"sync/atomic"
)

// upstream counts the bytes a client writes to its TCP connections: what the
// kernel is handed, so protocol framing (HTTP headers, WebSocket frames) is
// included and nothing the server sends back is.
type upstream struct{ n atomic.Int64 }

// dial opens a TCP connection whose writes are counted.
func (u *upstream) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: c, n: &u.n}, nil
}

// bytes returns the bytes written so far.
func (u *upstream) bytes() int64 { return u.n.Load() }

type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}
