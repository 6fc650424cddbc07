package agent

import "time"

// Checkpoint is the state needed to resume a turn suspended on RTCs. The transcript
// itself is in the database; this names the position in it.
type Checkpoint struct {
	Version     int       `json:"v"`
	TurnID      string    `json:"turn_id"`
	Step        int       `json:"step"`
	MessageID   string    `json:"message_id"`    // the assistant message whose calls are pending
	ToolCallIDs []string  `json:"tool_call_ids"` // the calls of that step
	Model       string    `json:"model"`
	SavedAt     time.Time `json:"saved_at"`
}

// CheckpointVersion is the current Checkpoint.Version.
const CheckpointVersion = 1
