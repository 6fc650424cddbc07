package protocol

import "time"

// Limits bounds every outside input. Zero values are replaced by the defaults.
type Limits struct {
	RequestBytes     int           // whole RPC request body; default 1 MiB
	MessageTextBytes int           // v1.message.send text; default 64 KiB
	ToolResultBytes  int           // RTC output or error; default 256 KiB
	ToolArgsBytes    int           // arguments of one tool call kept from the model; default 256 KiB
	StepArgsBytes    int           // arguments of all tool calls of one model step together; default 1 MiB
	StepCalls        int           // tool calls of one model step that run; default 64
	ModelTextBytes   int           // text of one model step; default 256 KiB
	AskUserBytes     int           // askUser arguments delivered as the model sent them; default 8 KiB
	PageBytes        int           // one page of Topic history: ends before the update that would pass it, holds at least one; default 1 MiB
	HostTools        int           // host tools per message; default 64
	HostToolBytes    int           // one host tool schema; default 16 KiB
	TitleBytes       int           // session title; default 200
	InstructionBytes int           // v1.session.compact instruction; default 4 KiB
	AgentMDBytes     int           // v1.message.send context.agent_md; default 32 KiB
	ViewContextBytes int           // v1.message.send context.views, their texts together; default 16 KiB
	IDBytes          int           // any id or client_id; default 128
	ListLimit        int           // max page size of list methods; default 200
	ExecTimeout      time.Duration // RTC execution deadline; default 5 min
	HumanTimeout     time.Duration // wait for a confirmation or askUser answer; default 24 h
	StepLimit        int           // model steps per turn; default 50
	// MessagesPerMinute and MessageBurst bound v1.message.send per user (a token
	// bucket, per node): defaults 20 and 10; a negative rate disables the limit.
	MessagesPerMinute int
	MessageBurst      int
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.RequestBytes, 1<<20)
	def(&l.MessageTextBytes, 64<<10)
	def(&l.ToolResultBytes, 256<<10)
	def(&l.ToolArgsBytes, 256<<10)
	def(&l.StepArgsBytes, 1<<20)
	def(&l.StepCalls, 64)
	def(&l.ModelTextBytes, 256<<10)
	def(&l.AskUserBytes, 8<<10)
	def(&l.PageBytes, 1<<20)
	def(&l.HostTools, 64)
	def(&l.HostToolBytes, 16<<10)
	def(&l.TitleBytes, 200)
	def(&l.InstructionBytes, 4<<10)
	def(&l.AgentMDBytes, 32<<10)
	def(&l.ViewContextBytes, 16<<10)
	def(&l.IDBytes, 128)
	def(&l.ListLimit, 200)
	def(&l.StepLimit, 50)
	if l.MessagesPerMinute == 0 {
		l.MessagesPerMinute = 20
	}
	def(&l.MessageBurst, 10)
	if l.ExecTimeout <= 0 {
		l.ExecTimeout = 5 * time.Minute
	}
	if l.HumanTimeout <= 0 {
		l.HumanTimeout = 24 * time.Hour
	}
	return l
}
