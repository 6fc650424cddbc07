package server

import (
	"bytes"
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// cancelEndedTasks hands the MCP tasks of the server calls commit c ended to
// the MCP manager, which cancels those whose result it did not read: a call
// stopped with its turn or chat, or timed out, whether or not a worker was
// waiting for its task (it may be on another node, or none between a restart
// and the next drain). Called from the commit hook: it decodes only changes
// that name a task, and never waits.
func (s *Server) cancelEndedTasks(c store.Commit) {
	if s.mcp == nil {
		return
	}
	for _, u := range c.Updates {
		for _, ch := range u.Changes {
			if ch.Type != protocol.UpdRTCUpdated {
				continue
			}
			r, ok := ch.Value.(*protocol.RTC)
			if !ok {
				if !bytes.Contains(ch.Data, []byte(`"task_id"`)) {
					continue
				}
				if r = new(protocol.RTC); json.Unmarshal(ch.Data, r) != nil {
					continue
				}
			}
			if r.TaskID != "" && r.Executor == protocol.RTCExecutorServer && protocol.RTCTerminal(r.Status) {
				s.mcp.CancelEnded(r.ToolName, r.TaskID)
			}
		}
	}
}
