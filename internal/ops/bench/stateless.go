package bench

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// statelessServer is the baseline's chat endpoint, built the way the Vercel AI
// SDK's route handler is (POST → convertToModelMessages → streamText →
// toUIMessageStreamResponse): it keeps nothing between requests. Every request
// carries the whole conversation; the handler converts it to the model's
// transcript, runs one model step and streams it back as server-sent events.
// A tool call without a server-side implementation ends the response; the
// browser runs it and POSTs the conversation again with the result.
type statelessServer struct {
	model llm.Model
	tools []llm.ToolSpec
	ids   atomic.Int64
	http  *http.Server
	url   string
}

func startStateless(m llm.Model) (*statelessServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &statelessServer{model: m, tools: tools.NewSet(nil).Specs(), url: "http://" + ln.Addr().String() + "/api/chat"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.chat)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

func (s *statelessServer) close() { _ = s.http.Close() }

func (s *statelessServer) chat(w http.ResponseWriter, r *http.Request) {
	var body chatRequest
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msgs, err := toModel(body.Messages)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	st, err := s.model.Stream(r.Context(), &llm.Request{Tools: s.tools, Messages: msgs})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer st.Close()
	// A continuation (the last message is the assistant's, now with results)
	// extends that message; otherwise the response starts a new one.
	msgID := "a" + strconv.FormatInt(s.ids.Add(1), 36)
	if n := len(body.Messages); n > 0 && body.Messages[n-1].Role == "assistant" {
		msgID = body.Messages[n-1].ID
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Vercel-Ai-Ui-Message-Stream", "v1")
	flusher, _ := w.(http.Flusher)
	send := func(c chunk) {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(chunk{Type: "start", MessageID: msgID})
	send(chunk{Type: "start-step"})
	textID := ""
	for st.Next() {
		ev := st.Current()
		switch ev.Kind {
		case llm.EventText:
			if textID == "" {
				textID = "t" + strconv.FormatInt(s.ids.Add(1), 36)
				send(chunk{Type: "text-start", ID: textID})
			}
			send(chunk{Type: "text-delta", ID: textID, Delta: ev.Text})
		case llm.EventToolCall:
			tc := ev.ToolCall
			send(chunk{Type: "tool-input-start", ToolCallID: tc.ID, ToolName: tc.Name})
			send(chunk{Type: "tool-input-available", ToolCallID: tc.ID, ToolName: tc.Name, Input: tc.Arguments})
		}
	}
	if textID != "" {
		send(chunk{Type: "text-end", ID: textID})
	}
	if err := st.Err(); err != nil {
		send(chunk{Type: "error", ErrorText: err.Error()})
	}
	send(chunk{Type: "finish-step"})
	send(chunk{Type: "finish"})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
