// Snapshots of one agent's state for React's useSyncExternalStore. Each view (the
// session list, one session's messages, the open prompts, the connection) is a
// cell: it is computed on first read after a change and then returned as the same
// object until the next change, so React re-renders only when something changed.
// One set of listeners per agent marks the cells dirty.

import type { Agent, ConnectionStatus, Message, Prompt, Rtc, Session, Turn } from "@rtc-agent/web/headless";
import { chatMessages, writingParts, type ChatMessage, type UntypedToolPart } from "./messages-view.js";

export class Cell<T> {
  private value: T | undefined;
  private dirty = true;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly compute: () => T) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly get = (): T => {
    if (this.dirty) {
      this.value = this.compute();
      this.dirty = false;
    }
    return this.value as T;
  };

  invalidate(): void {
    this.dirty = true;
    for (const l of [...this.listeners]) l();
  }
}

/** The state of one session a component shows: its messages with their tool calls, and the session. */
export interface SessionView {
  session: Session | undefined;
  messages: ChatMessage[];
  /** The tool calls the model is writing, before they are RTCs (state `input-streaming`). */
  writing: UntypedToolPart[];
  turns: Turn[];
  rtcs: Rtc[];
}

export class AgentStore {
  readonly sessions: Cell<Session[]>;
  readonly prompts: Cell<Prompt[]>;
  readonly status: Cell<ConnectionStatus>;
  private readonly views = new Map<string, Cell<SessionView>>();

  constructor(private readonly agent: Agent) {
    this.sessions = new Cell(() => agent.sessions());
    this.prompts = new Cell(() => agent.prompts());
    this.status = new Cell(() => agent.connectionStatus);
    const ev = agent.events;
    ev.on("change", (ch) => {
      if (ch.kind === "session") {
        this.sessions.invalidate();
        this.views.get(ch.entity.id)?.invalidate();
      } else {
        this.views.get(ch.entity.session_id)?.invalidate();
      }
    });
    ev.on("text", (t) => this.views.get(t.sessionId)?.invalidate());
    ev.on("writing", (w) => this.views.get(w.sessionId)?.invalidate());
    ev.on("hydrated", (id) => this.views.get(id)?.invalidate());
    ev.on("prompts", () => {
      this.prompts.invalidate();
      // Tool states show whether a call waits for the person's answer.
      for (const v of this.views.values()) v.invalidate();
    });
    ev.on("reset", () => {
      this.sessions.invalidate();
      for (const v of this.views.values()) v.invalidate();
    });
    ev.on("state", () => this.status.invalidate());
    ev.on("status", () => this.status.invalidate());
  }

  /** The cell of one session's view (kept while the agent lives: an unwatched cell costs nothing until read). */
  view(sessionId: string): Cell<SessionView> {
    let cell = this.views.get(sessionId);
    if (!cell) {
      const agent = this.agent;
      cell = new Cell(() => {
        const messages: Message[] = agent.messages(sessionId);
        const rtcs = agent.rtcs(sessionId);
        return {
          session: agent.session(sessionId),
          messages: chatMessages(messages, rtcs, agent.prompts(), (m) => agent.messageText(m)),
          writing: writingParts(agent.writingCalls(sessionId)),
          turns: agent.turns(sessionId),
          rtcs,
        };
      });
      this.views.set(sessionId, cell);
    }
    return cell;
  }
}

const stores = new WeakMap<Agent, AgentStore>();

/** The one store of an agent (its listeners end with the agent: destroy clears them). */
export function storeOf(agent: Agent): AgentStore {
  let s = stores.get(agent);
  if (!s) stores.set(agent, (s = new AgentStore(agent)));
  return s;
}
