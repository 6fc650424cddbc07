package chaos

// script is the scripted model of every run. Turns rotate by the number of user
// messages in the session: several tool calls in one step (one delivered at a
// time, so a decision taken meanwhile reaches the later ones), calls of the MCP
// server's tools that run on the server, a call the server refuses (bad
// arguments), slow streaming steps that a kill can cut, and a plain answer.
const script = `{"name": "chaos", "turns": [
  {"steps": [
    {"chunks": ["writing ", "three ", "files ", "now "], "delay_ms": 40,
     "tool_calls": [{"name": "write", "arguments": {"path": "/a.txt", "content": "alpha"}},
                    {"name": "write", "arguments": {"path": "/b.txt", "content": "beta"}},
                    {"name": "write", "arguments": {"path": "/c.txt", "content": "gamma"}}]},
    {"tool_calls": [{"name": "read", "arguments": {"path": "/a.txt"}}]},
    {"chunks": ["read: ", "{{last_result}}", " done"], "delay_ms": 20}
  ]},
  {"steps": [
    {"text": "Asking the server.", "tool_calls": [{"name": "mcp__sleep", "arguments": {"ms": 150, "tag": "a"}},
                                                  {"name": "mcp__echo", "arguments": {"text": "b"}},
                                                  {"name": "mcp__sleep", "arguments": {"ms": 150, "tag": "c"}},
                                                  {"name": "mcp__sleep", "arguments": {"ms": 150, "tag": "d"}}]},
    {"chunks": ["the server said ", "{{last_result}}"], "delay_ms": 20}
  ]},
  {"steps": [
    {"text": "Looking around.", "tool_calls": [{"name": "ls", "arguments": {"path": "/"}},
                                               {"name": "read", "raw_arguments": "{\"path\": "},
                                               {"name": "grep", "arguments": {"pattern": "a"}}]},
    {"chunks": ["found ", "{{last_result}}"], "delay_ms": 30}
  ]},
  {"steps": [
    {"chunks": ["a ", "slow ", "answer ", "in ", "many ", "pieces"], "delay_ms": 50}
  ]},
  {"steps": [
    {"tool_calls": [{"name": "find", "arguments": {"pattern": "*.txt"}}]},
    {"tool_calls": [{"name": "edit", "arguments": {"path": "/a.txt", "old_string": "alpha", "new_string": "gamma"}}]},
    {"text": "edited"}
  ]}
]}`
