// <AgentChat/>: the <rtc-agent> element (the SDK's complete chat UI) as a React
// component. Its children render after the element with the element's agent
// provided, so useTool, usePrompts and the other hooks inside them work on the
// agent behind the chat. The element's module (@rtc-agent/web/element) is loaded
// when an AgentChat first mounts, so an app that uses only the hooks never loads
// the UI; until it is there, an empty box with the same class and style stands in.

import type { Agent, AgentOptions, WorkMode } from "@rtc-agent/web/headless";
import type { RtcAgentElement } from "@rtc-agent/web/element";
import { createElement, Fragment, useCallback, useEffect, useRef, useState, type CSSProperties, type ReactNode } from "react";
import { AgentProvider } from "./agent.js";

export interface AgentChatProps {
  /** The RTC Agent server. Default: the page's origin. */
  serverUrl?: string;
  /** The user (default: the token's `sub`). */
  userId?: string;
  /** Returns a JWT for the user (the latest function is always the one called). */
  getToken?: AgentOptions["getToken"];
  /** Development servers only: take tokens from the server's POST /api/dev/token for `userId`. */
  devToken?: boolean;
  /** Work mode of new sessions. */
  workMode?: WorkMode;
  /** The header's title. */
  title?: string;
  /** `light` or `dark` instead of the system's colour scheme. */
  theme?: "light" | "dark";
  /** More createAgent options, read when the agent starts. */
  options?: Partial<AgentOptions>;
  className?: string;
  style?: CSSProperties;
  /** Called with the element's agent once it exists. */
  onReady?: (agent: Agent) => void;
  /** Rendered after the element, with its agent provided (useTool etc. act on it). */
  children?: ReactNode;
}

export function AgentChat(props: AgentChatProps): ReactNode {
  const latest = useRef(props);
  latest.current = props;
  const [agent, setAgent] = useState<Agent | null>(null);
  const [defined, setDefined] = useState(() => typeof customElements !== "undefined" && !!customElements.get("rtc-agent"));

  useEffect(() => {
    if (defined) return;
    let alive = true;
    import("@rtc-agent/web/element").then(
      () => alive && setDefined(true),
      (err: unknown) => console.error("rtc-agent: loading the chat element failed", err),
    );
    return () => {
      alive = false;
    };
  }, [defined]);

  // A callback ref runs in the commit, before the element's start (a microtask
  // after it is connected), so the token source and options are there in time.
  const elRef = useRef<RtcAgentElement | null>(null);
  const ref = useCallback((el: RtcAgentElement | null) => {
    elRef.current = el;
    if (!el) return;
    el.options = latest.current.options ?? {};
    if (latest.current.getToken) el.getToken = () => latest.current.getToken!();
    const ready = (e: Event) => {
      const a = (e as CustomEvent<{ agent: Agent }>).detail.agent;
      setAgent(a);
      latest.current.onReady?.(a);
    };
    el.addEventListener("rtc-agent-ready", ready);
    return () => {
      el.removeEventListener("rtc-agent-ready", ready);
      setAgent(null);
    };
  }, []);

  // A token source given after the first render starts the agent then.
  const hasToken = !!props.getToken;
  useEffect(() => {
    const el = elRef.current;
    if (el && hasToken && !el.getToken) el.getToken = () => latest.current.getToken!();
  }, [hasToken]);

  const attrs: Record<string, unknown> = {
    ref,
    className: props.className,
    style: props.style,
    "server-url": props.serverUrl,
    "user-id": props.userId,
    "work-mode": props.workMode,
    "dev-token": props.devToken ? "" : undefined,
    title: props.title,
    theme: props.theme,
  };
  // Created only once defined, so the element is an upgraded <rtc-agent> when the ref sets its properties.
  const chat = defined ? createElement("rtc-agent", attrs) : createElement("div", { className: props.className, style: props.style, "data-rtc-agent-loading": "" });
  return createElement(Fragment, null, chat, createElement(AgentProvider, { agent }, props.children));
}
