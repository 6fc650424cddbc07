package mcptest

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// panelURI is the view of the "panel" tool (MCP Apps), figuresURI a resource
// it reads.
const (
	panelURI   = "ui://mcptest/panel"
	figuresURI = "data://mcptest/figures"
)

// panelHTML is a view written against the MCP Apps messages by hand, so a test
// sees each one: it starts with ui/initialize, shows the call's arguments and
// result as they arrive, reports its height, tries to reach the network (it
// shows what it was told), asks the host to open a link or to send a message
// when its buttons are clicked (also a message too long to send and one with
// a picture, which the host refuses), gives the model its context when
// that button is clicked (ui/update-model-context), reads its server's
// figures (resources/read), asks to be shown fullscreen or to float
// (picture-in-picture) and shows the display mode it is told of, and calls its server's panel_refresh
// (a tool for views alone) or a tool its server does not have when those
// buttons are clicked, showing the result or why it was refused.
const panelHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Panel</title>
<style>body { font: 14px system-ui, sans-serif; margin: 8px; } p { margin: 4px 0; }</style></head>
<body>
<h1 id="title">Panel</h1>
<p id="input">waiting for the call</p>
<p><span id="result">no result yet</span> <span id="structured"></span></p>
<p id="tall">a view as tall as the chat's box allows</p>
<p id="call">-</p>
<p id="refresh-answer">-</p>
<p id="net">-</p>
<p id="link-answer">-</p>
<p id="msg-answer">-</p>
<p id="long-answer">-</p>
<p id="image-answer">-</p>
<p id="share-answer">-</p>
<p id="read-answer">-</p>
<p id="mode">mode: inline</p>
<button id="link" type="button">Open the guide</button>
<button id="ask" type="button">Ask about it</button>
<button id="ask-long" type="button">Ask at length</button>
<button id="ask-image" type="button">Ask with a picture</button>
<button id="share" type="button">Share the figures</button>
<button id="read" type="button">Read the figures</button>
<button id="refresh" type="button">Refresh</button>
<button id="call-unknown" type="button">Call a tool it lacks</button>
<button id="fullscreen" type="button">Fullscreen</button>
<button id="pip" type="button">Float</button>
<script>
let next = 0;
const waiting = new Map();
const show = (id, text) => { document.getElementById(id).textContent = text; };
const send = (msg) => window.parent.postMessage(msg, "*");
const request = (method, params) => new Promise((resolve, reject) => {
  const id = ++next;
  waiting.set(id, { resolve, reject });
  send({ jsonrpc: "2.0", id, method, params });
});
window.addEventListener("message", (e) => {
  const m = e.data;
  if (e.source !== window.parent || !m || m.jsonrpc !== "2.0") return;
  if (m.method === undefined) {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (w) m.error ? w.reject(new Error(m.error.message)) : w.resolve(m.result);
    return;
  }
  if (m.method === "ui/notifications/tool-input") show("input", "input: " + JSON.stringify(m.params.arguments));
  if (m.method === "ui/notifications/tool-result") {
    show("result", "result: " + (m.params.content || []).map((c) => c.text).join(""));
    show("structured", JSON.stringify(m.params.structuredContent ?? null));
  }
  if (m.method === "ui/notifications/tool-cancelled") show("result", "cancelled: " + (m.params.reason || ""));
  if (m.method === "ui/notifications/host-context-changed" && m.params.displayMode) show("mode", "mode: " + m.params.displayMode);
  if (m.id !== undefined && (m.method === "ping" || m.method === "ui/resource-teardown")) send({ jsonrpc: "2.0", id: m.id, result: {} });
});
document.getElementById("link").addEventListener("click", () => {
  request("ui/open-link", { url: "https://guide.example.test/panel" }).then(
    (r) => show("link-answer", r && r.isError ? "link refused" : "link asked"),
    (e) => show("link-answer", "link error: " + e.message));
});
const propose = (button, answer, content) => document.getElementById(button).addEventListener("click", () => {
  request("ui/message", { role: "user", content }).then(
    (r) => show(answer, r && r.isError ? "message refused" : "message sent"),
    (e) => show(answer, "message error: " + e.message));
});
propose("ask", "msg-answer", [{ type: "text", text: "Tell me more about these figures" }]);
propose("ask-long", "long-answer", [{ type: "text", text: "x".repeat(9000) }]);
propose("ask-image", "image-answer", [{ type: "text", text: "See this" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }]);
const callTool = (button, answer, name, args) => document.getElementById(button).addEventListener("click", () => {
  show(answer, "calling");
  request("tools/call", { name, arguments: args }).then(
    (r) => show(answer, (r.isError ? "call failed: " : "call: ") + (r.content || []).map((c) => c.text).join("")),
    (e) => show(answer, "call refused: " + e.message));
});
document.getElementById("share").addEventListener("click", () => {
  request("ui/update-model-context", { content: [{ type: "text", text: "The panel shows 3 figures" }], structuredContent: { figures: 3 } }).then(
    () => show("share-answer", "context kept"),
    (e) => show("share-answer", "context refused: " + e.message));
});
for (const mode of ["fullscreen", "pip"]) {
  document.getElementById(mode).addEventListener("click", () => {
    request("ui/request-display-mode", { mode }).then(
      (r) => show("mode", "mode: " + r.mode),
      (e) => show("mode", "mode refused: " + e.message));
  });
}
document.getElementById("read").addEventListener("click", () => {
  request("resources/read", { uri: "data://mcptest/figures" }).then(
    (r) => show("read-answer", "resource: " + (r.contents || []).map((c) => c.text).join("")),
    (e) => show("read-answer", "resource refused: " + e.message));
});
callTool("refresh", "refresh-answer", "panel_refresh", {});
callTool("call-unknown", "call", "no_such_tool", {});
(async () => {
  const init = await request("ui/initialize", { appInfo: { name: "panel", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" });
  show("title", "Panel in " + init.hostInfo.name + (init.hostCapabilities && init.hostCapabilities.serverTools ? " (tools)" : ""));
  send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
  send({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: document.documentElement.scrollHeight } });
  try {
    await fetch("https://net.example.test/");
    show("net", "net: reached");
  } catch {
    show("net", "net: blocked");
  }
})();
</script>
</body></html>`

type panelIn struct {
	Title string `json:"title"`
}

// panelOut is the panel's structured result, for its view.
type panelOut struct {
	Title   string `json:"title"`
	Figures int    `json:"figures"`
}

// addAppTools adds "panel", a tool with a view, its ui:// resource, the
// figures its view reads, and
// "panel_refresh", a tool only its view may call (not for the model).
func addAppTools(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: panelURI, Name: "panel", MIMEType: "text/html;profile=mcp-app"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: panelURI, MIMEType: "text/html;profile=mcp-app", Text: panelHTML}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: figuresURI, Name: "figures", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: figuresURI, MIMEType: "text/plain", Text: "12, 7, 30"}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "panel", Description: "Show a panel with a title.",
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": panelURI}}},
		func(ctx context.Context, req *mcp.CallToolRequest, in panelIn) (*mcp.CallToolResult, panelOut, error) {
			return text("panel shown: " + in.Title), panelOut{Title: in.Title, Figures: 3}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "panel_refresh", Description: "Refresh the panel (its view calls it).",
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": panelURI, "visibility": []string{"app"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return text("refreshed"), nil, nil
		})
}
