// A test page for the hooks (web/test/e2e/react-hooks.test.ts): a probe tool that
// exists while <Probe/> is mounted and answers with the label its latest render
// saw, a tool with a zod schema, a chat list from useSessions/useMessages, and
// counters of the agent's tool registrations, all on `window.app` for the test.
// Query: server, user.

import { AgentProvider, useAgent, useSession, useSessions, useTool } from "@rtc-agent/react";
import type { Agent } from "@rtc-agent/web/headless";
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";

const q = new URLSearchParams(location.search);
const serverUrl = q.get("server") ?? location.origin;
const userId = q.get("user") ?? "hooks-user";

async function getToken(): Promise<string> {
  const r = await fetch(new URL("/api/dev/token", serverUrl), { method: "POST", body: JSON.stringify({ user_id: userId }) });
  return ((await r.json()) as { token: string }).token;
}

export interface HooksApp {
  agent: Agent;
  registered: number;
  unregistered: number;
  renders: { probe: number; chat: number };
  setLabel: (label: string) => void;
  setMounted: (mounted: boolean) => void;
}
declare global {
  interface Window {
    app?: HooksApp;
  }
}
const renders = { probe: 0, chat: 0 };

function Probe({ label }: { label: string }) {
  renders.probe++;
  useTool("probeTool", {
    description: "Tells the label the page shows.",
    parameters: { type: "object", properties: {} },
    needsApproval: false,
    execute: () => `label is ${label}`,
  });
  return <p id="label">{label}</p>;
}

// A Standard Schema (zod) as a tool's parameters, defined once outside the component.
const echoArgs = z.object({ text: z.string().min(1) });

function Echo() {
  useTool("echoTool", {
    description: "Repeats a text.",
    parameters: echoArgs,
    needsApproval: false,
    execute: ({ text }) => `echo ${text}`,
  });
  return null;
}

function Chat() {
  renders.chat++;
  const sessions = useSessions();
  const { messages, writing } = useSession(sessions[0]?.id);
  return (
    <ol id="chat">
      {messages.map((m) => (
        <li key={m.id} className={`msg ${m.role}`} data-status={m.status}>
          {m.text}
          {m.tools.map((t) => (
            <span key={t.id} className="tool" data-tool={t.name} data-state={t.state}>
              {t.error ?? ""}
            </span>
          ))}
        </li>
      ))}
      {writing.length > 0 && (
        <li className="writing">
          {writing.map((t) => (
            <span key={t.id} className="tool" data-tool={t.name} data-state={t.state} data-input={JSON.stringify(t.input ?? null)} />
          ))}
        </li>
      )}
    </ol>
  );
}

function App() {
  const { agent, status } = useAgent({ serverUrl, userId, getToken });
  const [label, setLabel] = useState("one");
  const [mounted, setMounted] = useState(true);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (!agent) return;
    // Counts the probe tool's registrations (the probe mounts after this).
    const app: HooksApp = { agent, registered: 0, unregistered: 0, renders, setLabel, setMounted };
    const register = agent.registerTool.bind(agent);
    const unregister = agent.unregisterTool.bind(agent);
    Object.assign(agent, {
      registerTool: (def: Parameters<Agent["registerTool"]>[0]) => {
        if (def.name === "probeTool") app.registered++;
        register(def);
      },
      unregisterTool: (name: string) => {
        if (name === "probeTool") app.unregistered++;
        unregister(name);
      },
    });
    window.app = app;
    setReady(true);
    return () => {
      delete (agent as Partial<Pick<Agent, "registerTool" | "unregisterTool">>).registerTool;
      delete (agent as Partial<Pick<Agent, "registerTool" | "unregisterTool">>).unregisterTool;
    };
  }, [agent]);
  return (
    <AgentProvider agent={agent}>
      <span id="conn">{status.state}</span>
      {ready && mounted ? <Probe label={label} /> : null}
      <Echo />
      <Chat />
    </AgentProvider>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
