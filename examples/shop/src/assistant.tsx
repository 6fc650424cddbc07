// The shop's own chat panel, built from the hooks: the conversations
// (useSessions), the messages with streamed text and tool calls (useMessages) and
// the connection (useConnection); sending is agent.send.

import { Markdown, useAgentContext, useConnection, useMessages, useSessions, type ToolPart } from "@rtc-agent/react";
import { useEffect, useRef, useState, type FormEvent } from "react";

const TOOL_LABELS: Record<ToolPart["state"], string> = {
  "input-streaming": "preparing",
  "awaiting-approval": "waiting for your approval",
  "awaiting-input": "waiting for your answer",
  running: "running",
  done: "done",
  denied: "declined",
  error: "failed",
};

export function Assistant() {
  const agent = useAgentContext();
  const { state } = useConnection();
  const sessions = useSessions();
  const [chosen, setChosen] = useState<string | null | undefined>(undefined);
  // Until the customer picks one, the newest conversation is shown.
  const sessionId = chosen === undefined ? (sessions[0]?.id ?? null) : chosen;
  const messages = useMessages(sessionId);
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  // Keeps the newest message in view as messages arrive and text streams in.
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [messages]);

  async function send(e: FormEvent) {
    e.preventDefault();
    if (!agent || !text.trim()) return;
    setError("");
    try {
      const r = await agent.send(text.trim(), sessionId ? { sessionId } : {});
      setChosen(r.session_id);
      setText("");
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <section className="chat-panel" aria-label="Assistant">
      <header>
        <h2>Assistant</h2>
        <span className="conn" data-state={state}>
          {state}
        </span>
        <select aria-label="Conversation" value={sessionId ?? ""} onChange={(e) => setChosen(e.target.value || null)}>
          <option value="">New conversation</option>
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title || "Untitled"}
            </option>
          ))}
        </select>
      </header>
      <ol className="messages" ref={list}>
        {messages.map((m) => (
          <li key={m.id} className={`msg ${m.role}`} data-status={m.status}>
            {m.text && m.role === "assistant" ? <Markdown className="md" text={m.text} highlight={m.status !== "streaming"} /> : null}
            {m.text && m.role !== "assistant" ? <p>{m.text}</p> : null}
            {m.tools.map((t) => (
              <span key={t.id} className="tool" data-tool={t.name} data-state={t.state} title={t.error ?? ""}>
                {t.name}: {TOOL_LABELS[t.state]}
              </span>
            ))}
          </li>
        ))}
      </ol>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <form className="composer" onSubmit={send}>
        <input aria-label="Message" placeholder="Ask the shop assistant…" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" disabled={!agent || state !== "connected"}>
          Send
        </button>
      </form>
    </section>
  );
}
