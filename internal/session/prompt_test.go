package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A turn sent with host_tools_only (an AG-UI client's) offers the model none
// of the built-in browser tools, and its system prompt, which names them,
// says they are not available; a turn with them is told nothing of the kind.
func TestHostToolsOnlyTurnIsToldOfItsTools(t *testing.T) {
	st := testsvc.SQLite(t)
	reqs := make(chan *llm.Request, 4)
	r, ctx := startRunner(t, Config{Store: st, Model: recordingModel{helloModel(t), reqs}, PollInterval: time.Hour,
		System: "You may use read and ls."})
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })
	for _, only := range []bool{true, false} {
		var turn string
		err := st.Write(ctx, func(tx store.Tx) error {
			res, err := core.SendMessage(tx, core.Caller{UserID: "u", DeviceID: "d"}, &protocol.MessageSendRequest{
				ClientID: fmt.Sprintf("c-%v", only), Content: protocol.MessageContent{Text: "hi"}, HostToolsOnly: only})
			if err == nil {
				turn = res.TurnID
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		req := <-reqs
		waitCompleted(ctx, t, st, turn)
		told := strings.Contains(req.System, "are not available")
		var builtins bool
		for _, spec := range req.Tools {
			builtins = builtins || spec.Name == "read"
		}
		if told != only || builtins == only {
			t.Errorf("host tools only %v: told %v, built-in tools offered %v; system prompt %q", only, told, builtins, req.System)
		}
	}
}

// recordingModel hands each request to reqs before it streams.
type recordingModel struct {
	llm.Model
	reqs chan<- *llm.Request
}

func (m recordingModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	m.reqs <- req
	return m.Model.Stream(ctx, req)
}
