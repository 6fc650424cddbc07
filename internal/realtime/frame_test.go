package realtime_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestOversizedFrameClose: a 5 MB frame closes the socket with 1009 (message too
// big), the documented close, not an abnormal closure.
func TestOversizedFrameClose(t *testing.T) {
	_, url := startLocalNode(t)
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	big := `{"id":1,"rpc":{"method":"v1.session.list","data":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}}`
	werr := conn.WriteMessage(websocket.TextMessage, []byte(big))
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _, rerr := conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(rerr, &ce) {
		var ne net.Error
		t.Fatalf("write %v; read %v (timeout %v), want close 1009", werr, rerr, errors.As(rerr, &ne) && ne.Timeout())
	}
	t.Logf("client sees close %d %q (write error: %v)", ce.Code, ce.Text, werr)
	if ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("close %d %q, want 1009", ce.Code, ce.Text)
	}
}
