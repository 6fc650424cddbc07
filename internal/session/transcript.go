package session

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// transcriptReads is what a transcript is read from: the session's turns, its
// messages and the turns' RTCs.
type transcriptReads interface {
	store.Turns
	store.Messages
	store.RTCs
}

// loadTranscript reads what the session's next model request is built from. In a
// compacted session that is the latest summary and what follows the messages it
// covers: the turns from the one of message summary_of_seq on, their RTCs, and
// the messages from the lowest seq such a turn may have (a message sent while an
// earlier turn ran has a lower seq than that turn's later ones). Messages of
// older turns that this range still contains are left out by agent.BuildMessages.
func loadTranscript(tx transcriptReads, sessionID string, tr *agent.Transcript) error {
	sum, err := tx.MessageLastByRole(sessionID, protocol.RoleSummary)
	if errors.Is(err, store.ErrNotFound) {
		return loadWholeTranscript(tx, sessionID, tr)
	}
	if err != nil {
		return err
	}
	last, err := tx.MessageList(sessionID, store.Page{After: sum.SummaryOfSeq - 1, Limit: 1})
	if err != nil {
		return err
	}
	if len(last) == 0 || last[0].Seq != sum.SummaryOfSeq {
		return loadWholeTranscript(tx, sessionID, tr)
	}
	cover, err := tx.TurnGet(last[0].TurnID)
	if err != nil {
		return err
	}
	if tr.Turns, err = tx.TurnList(sessionID, store.Page{After: cover.Seq - 1, Limit: 1 << 30}); err != nil {
		return err
	}
	from := sum.SummaryOfSeq
	tr.RTCs = tr.RTCs[:0]
	for _, t := range tr.Turns {
		if t.Seq > cover.Seq && t.UserMessageID != "" {
			um, err := tx.MessageGet(t.UserMessageID)
			if err != nil {
				return err
			}
			from = min(from, um.Seq)
		}
		rtcs, err := tx.RTCListByTurn(t.ID)
		if err != nil {
			return err
		}
		tr.RTCs = append(tr.RTCs, rtcs...)
	}
	tr.Messages, err = tx.MessageList(sessionID, store.Page{After: from - 1, Limit: 1 << 30})
	return err
}

func loadWholeTranscript(tx transcriptReads, sessionID string, tr *agent.Transcript) error {
	var err error
	if tr.Turns, err = tx.TurnList(sessionID, store.Page{Limit: 1 << 30}); err != nil {
		return err
	}
	if tr.Messages, err = tx.MessageList(sessionID, store.Page{Limit: 1 << 30}); err != nil {
		return err
	}
	tr.RTCs, err = tx.RTCListBySession(sessionID, "", 1<<30)
	return err
}

// turnAgentMD is the AGENT.md the page sent with the turn's user message.
func turnAgentMD(tx store.Messages, t *protocol.Turn, tr agent.Transcript) (string, error) {
	if md, ok := agentMDIn(t, tr); ok {
		return md, nil
	}
	m, err := tx.MessageGet(t.UserMessageID)
	if err != nil {
		return "", err
	}
	return agentMDOf(m), nil
}

// agentMDIn is turnAgentMD from tr alone; false when tr lacks the turn's
// user message.
func agentMDIn(t *protocol.Turn, tr agent.Transcript) (string, bool) {
	if t.UserMessageID == "" {
		return "", true
	}
	for i := range tr.Messages {
		if m := &tr.Messages[i]; m.ID == t.UserMessageID {
			return agentMDOf(m), true
		}
	}
	return "", false
}

func agentMDOf(m *protocol.Message) string {
	if m.Context == nil {
		return ""
	}
	return m.Context.AgentMD
}
