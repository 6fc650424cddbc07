// useChat: one hook for a chat of the host's own design, in the shape chat hooks
// of the ecosystem have (AI SDK's useChat): the messages with their text and
// tool parts, sendMessage, status, stop, error and the open questions of this
// chat, with the session handled (the newest chat of this device, or a new one
// on the first message).

import type { Session, ToolTypes, WorkMode } from "@rtc-agent/web/headless";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useAgentContext } from "./agent.js";
import type { ChatMessage, ToolPart } from "./messages-view.js";
import { usePrompts, type PromptsHandle } from "./prompts.js";
import { useSession, useSessions } from "./sessions.js";

/**
 * Where the chat stands: `submitted` (sent, no answer streaming yet, or a tool
 * call running), `streaming` (the answer's text is arriving), `ready` (a message
 * may be sent), `error` (the last send or turn failed: see `error`).
 */
export type ChatStatus = "ready" | "submitted" | "streaming" | "error";

export interface UseChatOptions {
  /**
   * The chat to show and continue. Omitted: the newest open chat of this device
   * (the others run on another device), or a new one on the first message.
   * `null`: a new chat.
   */
  sessionId?: string | null;
  /** Work mode of a new chat (default: the agent's). */
  workMode?: WorkMode;
}

export interface ChatHandle<TT extends ToolTypes = ToolTypes> extends PromptsHandle<TT> {
  /** The chat shown (undefined until the first message of a new chat is sent). */
  sessionId: string | undefined;
  session: Session | undefined;
  /** The messages, their tool parts typed by the tool map `TT` (see useChat). */
  messages: ChatMessage<TT>[];
  /**
   * The tool calls the model is writing after the last message, before they are
   * RTCs (state `input-streaming`, `input` the arguments so far): they move into
   * their message's `tools` when the step's calls arrive.
   */
  writing: ToolPart<TT>[];
  status: ChatStatus;
  /** Why the last send or turn failed; cleared by the next send. */
  error: Error | undefined;
  /** Sends a message to the chat (starting it when new). */
  sendMessage: (text: string) => Promise<void>;
  /** Stops the chat's running turn. */
  stop: () => Promise<void>;
  /** Shows another chat of the user. */
  selectChat: (sessionId: string) => void;
  /** Starts a new chat with the next message. */
  newChat: () => void;
}

/**
 * One chat. `TT`, the tool map of the host's tools (`InferToolTypes<typeof
 * tools>` of tools made with `defineTool`), types each tool part's `input` and
 * `output` by its tool: the host's word for the tools it registers, as a chat
 * hook's message type is.
 */
export function useChat<TT extends ToolTypes = ToolTypes>(options: UseChatOptions = {}): ChatHandle<TT> {
  const agent = useAgentContext();
  const sessions = useSessions();
  // undefined: follow the default (the newest chat of this device); null: new.
  const [chosen, setChosen] = useState<string | null | undefined>(options.sessionId);
  // A new sessionId from the caller shows that chat (selectChat and newChat switch in between).
  useEffect(() => {
    if (options.sessionId !== undefined) setChosen(options.sessionId);
  }, [options.sessionId]);
  const fallback = agent ? sessions.find((s) => s.status === "open" && agent.ownsSession(s.id))?.id : undefined;
  const sessionId = chosen === undefined ? fallback : (chosen ?? undefined);
  const view = useSession(sessionId);
  const all = usePrompts<TT>();
  const [sending, setSending] = useState(false);
  const [sendError, setSendError] = useState<Error>();

  const sendMessage = useCallback(
    async (text: string) => {
      if (!agent) throw new Error("useChat: no agent yet");
      setSendError(undefined);
      setSending(true);
      try {
        const r = await agent.send(text, sessionId ? { sessionId } : options.workMode ? { workMode: options.workMode } : {});
        setChosen(r.session_id);
      } catch (err) {
        setSendError(err instanceof Error ? err : new Error(String(err)));
      } finally {
        setSending(false);
      }
    },
    [agent, sessionId, options.workMode],
  );
  const stop = useCallback(async () => {
    if (agent && sessionId && view.session?.active_turn_id) await agent.stop(sessionId);
  }, [agent, sessionId, view.session?.active_turn_id]);

  const lastTurn = view.turns[view.turns.length - 1];
  const failed = lastTurn?.status === "failed" && !view.session?.active_turn_id ? lastTurn : undefined;
  const turnError = useMemo(() => (failed ? new Error(failed.error?.message ?? "the turn failed") : undefined), [failed]);
  const error = sendError ?? turnError;
  const streaming = view.messages.some((m) => m.role === "assistant" && m.status === "streaming");
  const status: ChatStatus = error ? "error" : streaming ? "streaming" : sending || view.session?.active_turn_id ? "submitted" : "ready";
  const prompts = useMemo(() => (sessionId ? all.prompts.filter((p) => p.rtc.session_id === sessionId) : []), [all.prompts, sessionId]);

  return {
    ...all,
    prompts,
    sessionId,
    session: view.session,
    messages: view.messages as unknown as ChatMessage<TT>[],
    writing: view.writing as unknown as ToolPart<TT>[],
    status,
    error,
    sendMessage,
    stop,
    selectChat: setChosen,
    newChat: () => setChosen(null),
  };
}
