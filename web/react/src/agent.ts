// useAgent and <AgentProvider>: one agent per component tree. useAgent(options)
// creates the agent when the component mounts and destroys it when it unmounts;
// the other hooks find it through the nearest AgentProvider.

import { createAgent, type Agent, type AgentOptions, type ConnectionStatus } from "@rtc-agent/web/headless";
import { createContext, createElement, useContext, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import { storeOf } from "./store.js";

const AgentContext = createContext<Agent | null>(null);

/** Makes `agent` the one the hooks below it use (null while it starts). */
export function AgentProvider(props: { agent: Agent | null; children?: ReactNode }): ReactNode {
  return createElement(AgentContext.Provider, { value: props.agent }, props.children);
}

/** The agent of the nearest AgentProvider (null while it starts or without one). */
export function useAgentContext(): Agent | null {
  return useContext(AgentContext);
}

export interface AgentHandle {
  /** The agent, once created (null before, or after an error). */
  agent: Agent | null;
  /** The connection: `{state, retryAt?, problem?}`; `connecting` until the agent exists. */
  status: ConnectionStatus;
  /** Why the agent could not be created (bad options, storage unavailable). */
  error: Error | null;
}

const STARTING: ConnectionStatus = { state: "connecting" };
const noop = () => () => {};

/**
 * Creates an agent for the component's lifetime. The agent is created again only
 * when `serverUrl`, `userId` or `deviceId` change; the latest `getToken` is always
 * the one called, so an inline function does not restart anything. Other options
 * are read when the agent is created. Pass the agent to <AgentProvider>.
 */
export function useAgent(options: AgentOptions): AgentHandle {
  const latest = useRef(options);
  latest.current = options;
  const [agent, setAgent] = useState<Agent | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const { serverUrl, userId, deviceId } = options;

  useEffect(() => {
    let alive = true;
    let created: Agent | null = null;
    setError(null);
    createAgent({ ...latest.current, getToken: () => latest.current.getToken() }).then(
      (a) => {
        if (!alive) return a.destroy();
        created = a;
        setAgent(a);
      },
      (err: unknown) => {
        if (alive) setError(err instanceof Error ? err : new Error(String(err)));
      },
    );
    return () => {
      alive = false;
      created?.destroy();
      setAgent(null);
    };
  }, [serverUrl, userId, deviceId]);

  const status = useConnection(agent);
  return { agent, status, error };
}

/** The connection status of an agent (or of the provided one), re-rendering on change. */
export function useConnection(agent?: Agent | null): ConnectionStatus {
  const provided = useAgentContext();
  const a = agent === undefined ? provided : agent;
  const cell = a ? storeOf(a).status : null;
  return useSyncExternalStore(cell ? cell.subscribe : noop, cell ? cell.get : () => STARTING, () => STARTING);
}
