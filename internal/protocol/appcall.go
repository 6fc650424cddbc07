package protocol

import "encoding/json"

// MethodAppCall runs a tool for a tool's view (MCP Apps): a tool of the MCP
// server of the call whose card shows the view, as an RTC of that call's turn.
const MethodAppCall = "v1.app.call"

// Limits of a view's calls.
const (
	// AppCallArgsBytes bounds the arguments of one call of a view.
	AppCallArgsBytes = 64 << 10
	// AppCallsPerView bounds the calls one view may make (one call's card).
	AppCallsPerView = 64
	// AppToolNameBytes bounds the tool's name as the view gives it (without
	// its server's prefix).
	AppToolNameBytes = 64
)

// AppCallRequest is a view's call of a tool of its own MCP server.
type AppCallRequest struct {
	// RTCID is the call whose card shows the view.
	RTCID string `json:"rtc_id"`
	// Tool is the tool's name at its server (no "<server>__" prefix: a view
	// calls only tools of its own server).
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// ClientID is the idempotency key: the same key for the same view returns
	// the RTC the first request created.
	ClientID string `json:"client_id"`
}

// MethodAppResource reads a resource of the MCP server of the call whose card
// shows a tool's view, for that view (MCP Apps serverResources).
const MethodAppResource = "v1.app.resource"

// Limits of a view's resource reads.
const (
	// AppResourceURIBytes bounds the resource's URI.
	AppResourceURIBytes = 2048
	// AppResourceBytes bounds what a read returns: its contents together
	// (URIs, media types, text and blobs).
	AppResourceBytes = 1 << 20
	// AppResourceReadsPerMinute and AppResourceReadBurst bound a user's
	// views' reads.
	AppResourceReadsPerMinute = 120
	AppResourceReadBurst      = 20
	// AppResourceReadsAtOnce bounds the reads running at once, over all users.
	AppResourceReadsAtOnce = 8
)

// AppResourceRequest is a view's read of a resource of its own MCP server.
type AppResourceRequest struct {
	// RTCID is the call whose card shows the view.
	RTCID string `json:"rtc_id"`
	URI   string `json:"uri"`
}

// AppResourceResult is the resource as its server gave it.
type AppResourceResult struct {
	Contents []AppResourceContent `json:"contents"`
}

// AppResourceContent is one content of a resource: text, or a blob in base64.
type AppResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mime_type,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}
