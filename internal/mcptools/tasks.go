package mcptools

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// A tool listed with execution.taskSupport "required" or "optional" (the MCP
// tasks extension) is called as a task when its server declares tasks for
// tools/call (task.go); a "required" tool of a server that does not is left
// out (every plain call of it fails). The SDK's Tool and ServerCapabilities
// have no field for either, so the raw answers to initialize and tools/list
// are read on their way in and what they say is noted per connection.

// noteTaskSupport reads one line of a server's output; when it is an answer to
// initialize, whether the server runs tools/call as tasks is noted; when it
// is an answer to tools/list, the task support of the server's tools on that
// page.
func (c *conn) noteTaskSupport(line []byte) {
	line = bytes.TrimPrefix(line, []byte("data:")) // a server-sent event's data
	if bytes.Contains(line, []byte(`"serverInfo"`)) && bytes.Contains(line, []byte(`"capabilities"`)) {
		// The answer to initialize (or server/discover): it names the
		// server and says what it serves.
		var msg struct {
			Result *struct {
				ServerInfo   *json.RawMessage `json:"serverInfo"`
				Capabilities struct {
					Tasks *struct {
						Cancel   *json.RawMessage `json:"cancel"`
						Requests struct {
							Tools struct {
								Call *json.RawMessage `json:"call"`
							} `json:"tools"`
						} `json:"requests"`
					} `json:"tasks"`
				} `json:"capabilities"`
			} `json:"result"`
		}
		if json.Unmarshal(line, &msg) == nil && msg.Result != nil && msg.Result.ServerInfo != nil {
			tasks := msg.Result.Capabilities.Tasks
			c.mu.Lock()
			c.runsTasks = tasks != nil && tasks.Requests.Tools.Call != nil
			c.cancelsTasks = tasks != nil && tasks.Cancel != nil
			c.mu.Unlock()
			return
		}
	}
	if !bytes.Contains(line, []byte(`"inputSchema"`)) {
		return
	}
	var msg struct {
		Result struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range msg.Result.Tools {
		switch t.Execution.TaskSupport {
		case taskRequired, taskOptional:
			c.taskSupport[t.Name] = t.Execution.TaskSupport
		default:
			delete(c.taskSupport, t.Name)
		}
	}
}

// execution.taskSupport values; a tool that says neither is never a task.
const (
	taskRequired = "required"
	taskOptional = "optional"
)

// taskMode is how the server's tool name runs: as a task (true), or not at
// all (offered false: it requires tasks and the server declares none for
// tools/call).
func (c *conn) taskMode(name string) (task, offered bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	support := c.taskSupport[name]
	if !c.runsTasks {
		return false, support != taskRequired
	}
	return support != "", true
}

// noteLineBytes bounds the lines of an HTTP answer other than a tool listing
// that are kept to be noted: a question's form fits (tools.MaxFormBytes), and
// a large tool result is not copied a second time.
const noteLineBytes = 256 << 10

// watchLines gives the lines of an HTTP answer to take as they are read,
// before the SDK decodes them: those of a tool listing up to limit, the
// others up to noteLineBytes; a line take takes is not passed on. A longer
// line is passed on as it comes, unseen.
func watchLines(req *http.Request, resp *http.Response, limit int, take func([]byte) bool) {
	if resp.Body == nil {
		return
	}
	if !listsTools(req) {
		limit = min(limit, noteLineBytes)
	}
	resp.Body = &lineTee{rc: resp.Body, limit: limit, take: take}
}

// listsTools reports whether req is a tools/list request, from the head of
// its body.
func listsTools(req *http.Request) bool {
	if req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	head, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	return strings.Contains(string(head), `"tools/list"`)
}

// lineTee passes a body on a line at a time: each complete line of at most
// limit bytes goes to take first (a line is complete at its newline or at
// the body's end) and is passed on unless taken; a longer line is passed on
// as it is read.
type lineTee struct {
	rc    io.ReadCloser
	limit int
	take  func([]byte) bool
	line  []byte // the line being read, up to limit
	over  bool   // the current line is over the limit: passed on as read
	out   []byte // read, to be passed on
	err   error  // the body's error, returned once out is empty
	buf   []byte
}

func (t *lineTee) Read(p []byte) (int, error) {
	for len(t.out) == 0 && t.err == nil {
		if t.buf == nil {
			t.buf = make([]byte, 32<<10)
		}
		n, err := t.rc.Read(t.buf)
		t.add(t.buf[:n])
		if err != nil {
			t.err = err
			if len(t.line) > 0 {
				t.done()
			}
		}
	}
	if len(t.out) == 0 {
		return 0, t.err
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

func (t *lineTee) add(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i+1]
		}
		switch {
		case t.over:
			t.out = append(t.out, part...)
		case len(t.line)+len(part) > t.limit:
			t.over = true
			t.out = append(append(t.out, t.line...), part...)
			t.line = t.line[:0]
		default:
			t.line = append(t.line, part...)
		}
		if i < 0 {
			return
		}
		if !t.over {
			t.done()
		}
		t.line, t.over = t.line[:0], false
		b = b[i+1:]
	}
}

// done hands the complete line to take, and passes it on unless taken.
func (t *lineTee) done() {
	if !t.take(t.line) {
		t.out = append(t.out, t.line...)
	}
	t.line = t.line[:0]
}

func (t *lineTee) Close() error { return t.rc.Close() }

// cancels reports whether the server declares tasks/cancel.
func (c *conn) cancels() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelsTasks
}
