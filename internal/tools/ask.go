package tools

import (
	"encoding/json"
	"fmt"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Bounds of one askUser call's fields once its arguments are over
// protocol.Limits.AskUserBytes: the questions are shown to the person in every
// tab, so each is kept short enough to read, with a note where it was cut.
const (
	askQuestions     = 4 // the schema's maxItems
	askOptions       = 4 // the schema's maxItems
	askQuestionBytes = 2 << 10
	askHeaderBytes   = 128
	askLabelBytes    = 256
	askDescription   = 512
)

type askArgs struct {
	Questions []askQuestion `json:"questions"`
}

type askQuestion struct {
	Question    string      `json:"question"`
	Header      string      `json:"header,omitempty"`
	Options     []askOption `json:"options"`
	MultiSelect bool        `json:"multiSelect,omitempty"`
}

type askOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// BoundAskArgs returns askUser arguments of at most limit bytes as they are, and
// larger ones rebuilt from the fields askUser shows, each cut to its bound
// (questions and options past the schema's four are left out, with a note).
// ok is false when larger arguments are not askUser's shape: nothing can be
// kept of them but a prefix, so the call cannot run.
func BoundAskArgs(args json.RawMessage, limit int) (out json.RawMessage, ok bool) {
	if len(args) <= limit {
		return args, true
	}
	var a askArgs
	if err := json.Unmarshal(args, &a); err != nil || len(a.Questions) == 0 {
		return nil, false
	}
	dropped := len(a.Questions) - askQuestions
	if dropped > 0 {
		a.Questions = a.Questions[:askQuestions]
	}
	for i := range a.Questions {
		q := &a.Questions[i]
		q.Question = protocol.Cut(q.Question, askQuestionBytes)
		if n := len(q.Options) - askOptions; n > 0 {
			q.Options = q.Options[:askOptions]
			q.Question += fmt.Sprintf("… [cut: %d more options]", n)
		}
		if i == len(a.Questions)-1 && dropped > 0 {
			q.Question += fmt.Sprintf("… [cut: %d more questions]", dropped)
		}
		q.Header = protocol.Cut(q.Header, askHeaderBytes)
		for j := range q.Options {
			o := &q.Options[j]
			o.Label = protocol.Cut(o.Label, askLabelBytes)
			o.Description = protocol.Cut(o.Description, askDescription)
		}
	}
	out, err := json.Marshal(a)
	return out, err == nil
}
