package mcptools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The Go SDK sends only the methods it knows, with the fields it knows: a
// task-augmented tools/call and the tasks/* methods of the MCP tasks extension
// are not among them (task.go). Such requests go beside the SDK, on the same
// connection and in the same MCP session: on stdio as lines of their own
// whose answers are taken out before the SDK reads (ids of their own prefix,
// strings, where the SDK's are numbers); on Streamable HTTP as POSTs of their
// own with the session's id and protocol version, whose answers come back on
// them.

// sideIDPrefix starts the id of every request sent beside the SDK.
const sideIDPrefix = "rtcagent-side-"

// side sends one request beside the SDK and returns its answer's result;
// close ends the requests in flight (the connection ended).
type side interface {
	call(ctx context.Context, method string, params any) (json.RawMessage, error)
	close()
}

// rpcError is a JSON-RPC error answered to a request sent beside the SDK.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// sideAnswer is the part of a JSON-RPC message a side request's answer is
// read from.
type sideAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func (a *sideAnswer) value() (json.RawMessage, error) {
	if a.Error != nil {
		return nil, a.Error
	}
	if len(a.Result) == 0 {
		return nil, errors.New("the server's answer has neither a result nor an error")
	}
	return a.Result, nil
}

// sideRequest encodes a request with id n.
func sideRequest(n int64, method string, params any) ([]byte, string, error) {
	id := sideIDPrefix + strconv.FormatInt(n, 10)
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return b, id, err
}

// lineSide sends side requests to a stdio server as lines of its stdin and
// takes their answers out of its output (take, called by the lineGuard).
type lineSide struct {
	mu      sync.Mutex
	w       io.Writer // the server's stdin; nil until connected
	next    int64
	wait    map[string]chan sideAnswer
	closed  bool
	sending chan struct{} // one token per answer being written (send)
}

func newLineSide() *lineSide {
	return &lineSide{wait: map[string]chan sideAnswer{}, sending: make(chan struct{}, maxSideSends)}
}

func (s *lineSide) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // nothing is sent that no one would wait for
	}
	s.mu.Lock()
	if s.closed || s.w == nil {
		s.mu.Unlock()
		return nil, errNotConnected
	}
	s.next++
	line, id, err := sideRequest(s.next, method, params)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	ch := make(chan sideAnswer, 1)
	s.wait[id] = ch
	w := s.w
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.wait, id)
		s.mu.Unlock()
	}()
	if _, err := w.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return nil, errors.New("the connection to the MCP server ended before its answer")
		}
		return a.value()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// send writes one whole message to the server (an answer to its request)
// in the background: it is called on the reader of the server's output,
// which must not wait for the server to read its input. At most
// maxSideSends wait to be written; more are dropped.
func (s *lineSide) send(msg []byte) {
	s.mu.Lock()
	w := s.w
	closed := s.closed
	s.mu.Unlock()
	if w == nil || closed {
		return
	}
	select {
	case s.sending <- struct{}{}:
	default:
		return // the server reads none of its input: it gets no more answers
	}
	go func() {
		defer func() { <-s.sending }()
		_, _ = w.Write(append(msg, '\n'))
	}()
}

// maxSideSends bounds the answers waiting to be written to one server.
const maxSideSends = 16

// take hands a line that answers a side request to its waiter and reports
// whether it did: the SDK never reads such a line.
func (s *lineSide) take(line []byte) bool {
	if !bytes.Contains(line, []byte(`"`+sideIDPrefix)) {
		return false
	}
	var a sideAnswer
	if json.Unmarshal(line, &a) != nil || a.Method != "" {
		return false
	}
	var id string
	if json.Unmarshal(a.ID, &id) != nil || !strings.HasPrefix(id, sideIDPrefix) {
		return false
	}
	s.mu.Lock()
	ch := s.wait[id]
	delete(s.wait, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- a
	}
	return true // an answer to a request no one waits for any more is dropped too
}

// close ends every request waiting for an answer: the connection is gone.
func (s *lineSide) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for id, ch := range s.wait {
		close(ch)
		delete(s.wait, id)
	}
}

// httpSide sends side requests to a Streamable HTTP server as POSTs in the
// SDK's session. The server may send requests of its own on the answer's
// event stream (a question of the task, with its related-task id): they are
// answered by serve, as the SDK would answer them.
type httpSide struct {
	url      string
	client   *http.Client // adds the configured headers; reads no line for the SDK
	limit    int          // largest message read
	serve    func(ctx context.Context, method string, params json.RawMessage) (any, error)
	seen     func(msg []byte)                      // each message read (schema orders)
	progress func(*mcp.ProgressNotificationParams) // progress notifications read
	life     context.Context                       // ends with the connection (close)
	end      context.CancelFunc
	sending  chan struct{} // one token per answer being posted (send)

	mu      sync.Mutex
	next    int64
	session string // Mcp-Session-Id of the SDK's latest request
	version string // Mcp-Protocol-Version of the SDK's latest request
}

func newHTTPSide(url string, client *http.Client, limit int, serve func(context.Context, string, json.RawMessage) (any, error),
	seen func([]byte), progress func(*mcp.ProgressNotificationParams)) *httpSide {
	life, end := context.WithCancel(context.Background())
	return &httpSide{url: url, client: client, limit: limit, serve: serve, seen: seen, progress: progress, life: life, end: end,
		sending: make(chan struct{}, maxSideSends)}
}

func (s *httpSide) close() { s.end() }

// send posts one message to the server in the session (an answer to its
// request), in the background, bounded by the connection's life.
func (s *httpSide) send(msg []byte) {
	select {
	case s.sending <- struct{}{}:
	default:
		return // as many posts under way as allowed: the server gets no more answers
	}
	go func() {
		defer func() { <-s.sending }()
		ctx, cancel := context.WithTimeout(s.life, 30*time.Second)
		defer cancel()
		if resp, err := s.post(ctx, msg); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
	}()
}

// withTasks is a connection's side with the tasks the client runs for its
// server: closing it ends them too.
type withTasks struct {
	side
	tasks *clientTasks
}

func (w withTasks) close() {
	w.side.close()
	w.tasks.close()
}

// note keeps the session's id and protocol version from a request the SDK
// sends, and reports whether the request belongs to a session already.
func (s *httpSide) note(req *http.Request) (inSession bool) {
	sid, ver := req.Header.Get("Mcp-Session-Id"), req.Header.Get("Mcp-Protocol-Version")
	if sid == "" && ver == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sid != "" {
		s.session = sid
	}
	if ver != "" {
		s.version = ver
	}
	return sid != ""
}

func (s *httpSide) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	s.mu.Lock()
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	if s.version != "" {
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	s.mu.Unlock()
	return s.client.Do(req)
}

func (s *httpSide) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if s.life.Err() != nil {
		return nil, errNotConnected
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.life, cancel) // the connection ended: so does the request
	defer stop()
	s.mu.Lock()
	s.next++
	n := s.next
	s.mu.Unlock()
	body, id, err := sideRequest(n, method, params)
	if err != nil {
		return nil, err
	}
	resp, err := s.post(ctx, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return nil, fmt.Errorf("the MCP server answered %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		b, err := io.ReadAll(io.LimitReader(resp.Body, int64(s.limit)+1))
		if err != nil {
			return nil, err
		}
		if len(b) > s.limit {
			return nil, fmt.Errorf("the server's answer is more than the %d bytes this client reads", s.limit)
		}
		return s.answer(ctx, id, b)
	}
	return s.events(ctx, id, resp.Body)
}

// events reads an answer's event stream until the answer to id.
func (s *httpSide) events(ctx context.Context, id string, body io.Reader) (json.RawMessage, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), s.limit)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0 && len(data) > 0:
			res, err := s.answer(ctx, id, data)
			if res != nil || err != nil {
				return res, err
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			part := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data)+len(part)+1 > s.limit {
				return nil, fmt.Errorf("an event of the server's answer is more than the %d bytes this client reads", s.limit)
			}
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, part...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(data) > 0 {
		if res, err := s.answer(ctx, id, data); res != nil || err != nil {
			return res, err
		}
	}
	return nil, errors.New("the MCP server's event stream ended before its answer")
}

// answer reads one message of an answer: the answer to id is returned; a
// request of the server is served and answered; anything else is passed by
// (nil, nil).
func (s *httpSide) answer(ctx context.Context, id string, msg []byte) (json.RawMessage, error) {
	if s.seen != nil {
		s.seen(msg)
	}
	var a struct {
		sideAnswer
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(msg, &a); err != nil {
		return nil, fmt.Errorf("the MCP server's answer is not JSON-RPC: %w", err)
	}
	if a.Method != "" {
		switch {
		case len(a.ID) > 0 && string(a.ID) != "null":
			s.reply(ctx, a.ID, a.Method, a.Params)
		case a.Method == "notifications/progress":
			var p mcp.ProgressNotificationParams
			if json.Unmarshal(a.Params, &p) == nil {
				s.progress(&p)
			}
		}
		return nil, nil
	}
	var got string
	if json.Unmarshal(a.ID, &got) != nil || got != id {
		return nil, nil
	}
	return a.value()
}

// reply serves a request the server sent on a side request's stream and posts
// its answer.
func (s *httpSide) reply(ctx context.Context, id json.RawMessage, method string, params json.RawMessage) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if res, err := s.serve(ctx, method, params); err != nil {
		var rerr *rpcError
		if !errors.As(err, &rerr) {
			rerr = &rpcError{Code: -32603, Message: err.Error()}
		}
		msg["error"] = rerr
	} else {
		msg["result"] = res
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	if resp, err := s.post(ctx, b); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}
}

// serveSide answers a request an MCP server sent on a side request's stream
// the way the SDK's handlers answer those it reads: questions and requests to
// use the model go to the call the request names (its related task).
func (m *Manager) serveSide(c *conn) func(ctx context.Context, method string, params json.RawMessage) (any, error) {
	return func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "elicitation/create":
			var p mcp.ElicitParams
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			return m.elicit(ctx, c, &mcp.ElicitRequest{Params: &p})
		case "sampling/createMessage":
			var p mcp.CreateMessageParams
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			return m.sample(ctx, c, &mcp.CreateMessageRequest{Params: &p})
		case "ping":
			return struct{}{}, nil
		}
		return nil, &rpcError{Code: -32601, Message: "method not served on this stream: " + protocol.Cut(method, 64)}
	}
}
