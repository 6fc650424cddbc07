// useSessions and useMessages: the session list and one session's conversation,
// re-rendering when they change (Topic updates, streamed text, prompts).

import type { Session } from "@rtc-agent/web/headless";
import { useEffect, useSyncExternalStore } from "react";
import { useAgentContext } from "./agent.js";
import type { ChatMessage } from "./messages-view.js";
import { storeOf, type SessionView } from "./store.js";

const NO_SESSIONS: Session[] = [];
const EMPTY_VIEW: SessionView = { session: undefined, messages: [], writing: [], turns: [], rtcs: [] };
const noop = () => () => {};

/** The user's sessions (not deleted), newest first, as the agent keeps them. */
export function useSessions(): Session[] {
  const agent = useAgentContext();
  const cell = agent ? storeOf(agent).sessions : null;
  return useSyncExternalStore(cell ? cell.subscribe : noop, cell ? cell.get : () => NO_SESSIONS, () => NO_SESSIONS);
}

/**
 * One session: its messages (text streaming in, tool calls with their states),
 * the session itself (title, active turn), its turns and RTCs. Loads the
 * session's history when needed. `undefined` gives an empty view.
 */
export function useSession(sessionId: string | null | undefined): SessionView {
  const agent = useAgentContext();
  const cell = agent && sessionId ? storeOf(agent).view(sessionId) : null;
  useEffect(() => {
    if (!agent || !sessionId) return;
    agent.loadSession(sessionId).catch((err: unknown) => console.error(`rtc-agent: loading session ${sessionId} failed`, err));
  }, [agent, sessionId]);
  return useSyncExternalStore(cell ? cell.subscribe : noop, cell ? cell.get : () => EMPTY_VIEW, () => EMPTY_VIEW);
}

/** The messages of a session with their streamed text and tool calls (see useSession). */
export function useMessages(sessionId: string | null | undefined): ChatMessage[] {
  return useSession(sessionId).messages;
}
