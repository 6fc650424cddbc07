// A page that uses RTC Agent through AG-UI only: @ag-ui/client's HttpAgent
// posts each run to the server's /ag-ui endpoint; when the model calls the
// page's own tool (get_weather), the run ends with the call pending, the
// person runs it with a click, and its result goes back in the next run. Open it with ?server=<RTC Agent URL>&user=<id> against a
// server started with -dev (its /api/dev/token issues the token); a real site
// gets the token from its own backend.

import "./jitless.js";
import { HttpAgent, type Message, type Tool } from "@ag-ui/client";

const params = new URLSearchParams(location.search);
const server = params.get("server") ?? "http://localhost:8080";
const userId = params.get("user") ?? "ag-ui-example";

/** The page's tools: what the model may call, and how the page runs each. */
const tools: Tool[] = [
  {
    name: "get_weather",
    description: "The current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  },
];
const run: Record<string, (args: { city?: string }) => string> = {
  get_weather: ({ city }) => `sunny and 21 °C in ${city ?? "town"}`,
};

const list = document.querySelector<HTMLOListElement>(".messages")!;
const status = document.querySelector<HTMLParagraphElement>(".status")!;
const form = document.querySelector<HTMLFormElement>(".composer")!;
const input = form.querySelector<HTMLInputElement>("input")!;

async function token(): Promise<string> {
  const r = await fetch(`${server}/api/dev/token`, { method: "POST", body: JSON.stringify({ user_id: userId }) });
  return ((await r.json()) as { token: string }).token;
}

const agent = new HttpAgent({
  url: `${server}/ag-ui`,
  threadId: sessionStorage.getItem("ag-ui-thread") ?? crypto.randomUUID(),
  headers: { Authorization: `Bearer ${await token()}` },
});
sessionStorage.setItem("ag-ui-thread", agent.threadId);

function show(state: string, text: string): void {
  status.dataset.state = state;
  status.textContent = text;
}

function render(messages: readonly Message[]): void {
  list.replaceChildren(
    ...messages.flatMap((m) => {
      const text = m.role === "tool" ? `${m.toolCallId}: ${m.content}` : typeof m.content === "string" ? m.content : "";
      const calls = m.role === "assistant" ? (m.toolCalls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments})`) : [];
      if (!text && calls.length === 0) return [];
      const li = document.createElement("li");
      li.className = m.role;
      li.textContent = [text, ...calls].filter(Boolean).join("\n");
      return [li];
    }),
  );
}

agent.subscribe({ onMessagesChanged: ({ messages }) => render(messages) });

/** The calls waiting for the page, by id: each shows a button that runs it. */
const waiting = document.querySelector<HTMLUListElement>(".waiting")!;

/** Runs the agent once; the page's calls it ends with wait for the person's click. */
async function converse(): Promise<void> {
  let pending: string[] = [];
  show("running", "Thinking…");
  await agent.runAgent({ tools }, {
    onRunFinishedEvent: ({ event }) => {
      const outcome = (event as { outcome?: { type: string; pendingToolCallIds?: string[] } }).outcome;
      pending = outcome?.pendingToolCallIds ?? [];
    },
  });
  waiting.replaceChildren(...pending.map(offer));
  show(pending.length ? "waiting" : "idle", pending.length ? "Waiting for you" : "Idle");
}

/** A button that runs a pending call of the page's tool and sends its result. */
function offer(id: string): HTMLLIElement {
  const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.id === id);
  const li = document.createElement("li");
  const button = document.createElement("button");
  button.textContent = call ? `Run ${call.function.name}(${call.function.arguments})` : `Answer ${id}`;
  button.addEventListener("click", () => {
    const fn = call && run[call.function.name];
    const content = fn ? fn(JSON.parse(call.function.arguments || "{}") as { city?: string }) : "unknown tool";
    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: id, content });
    waiting.replaceChildren();
    converse().catch(fail);
  });
  li.append(button);
  return li;
}

function fail(err: unknown): void {
  show("error", `Error: ${String(err)}`);
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content: input.value });
  input.value = "";
  converse().catch(fail);
});

// A reload finds the thread as the server holds it, and any call still pending.
converse().catch(fail);
