// The shop's own chat panel, built on useChat (the messages with streamed text
// and tool calls, sending, status, the conversation handled), the session list
// (useSessions) and the connection (useConnection).

import { Markdown, useChat, useConnection, useSessions, type ToolPart } from "@rtc-agent/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { ShopToolTypes } from "./tools.js";

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
  const { state } = useConnection();
  const sessions = useSessions();
  // The newest conversation of this device until the customer picks one.
  // Typed by the shop's tools: a part of `checkout` has the order as its output.
  const { sessionId, messages, status, error, sendMessage, stop, selectChat, newChat } = useChat<ShopToolTypes>();
  const [text, setText] = useState("");
  // Keeps the newest message in view as messages arrive and text streams in.
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [messages]);

  async function send(e: FormEvent) {
    e.preventDefault();
    if (!text.trim()) return;
    await sendMessage(text.trim());
    setText("");
  }

  return (
    <section className="chat-panel" aria-label="Assistant">
      <header>
        <h2>Assistant</h2>
        <span className="conn" data-state={state}>
          {state}
        </span>
        <select aria-label="Conversation" value={sessionId ?? ""} onChange={(e) => (e.target.value ? selectChat(e.target.value) : newChat())}>
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
                {t.name === "checkout" && t.output ? ` (order ${t.output.orderId}, ${t.output.total})` : null}
              </span>
            ))}
          </li>
        ))}
      </ol>
      {error ? <p className="error" role="alert">{error.message}</p> : null}
      <form className="composer" onSubmit={send} data-status={status}>
        <input aria-label="Message" placeholder="Ask the shop assistant…" value={text} onChange={(e) => setText(e.target.value)} />
        {status === "submitted" || status === "streaming" ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : null}
        <button type="submit" disabled={state !== "connected"}>
          Send
        </button>
      </form>
    </section>
  );
}
