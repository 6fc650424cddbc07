// The headless variant of "Embed in five minutes" (web/README.md): no UI from the
// SDK, the page draws its own. Bundled from the packed tarball by
// test/e2e/pack.test.ts, type-checked with `tsc --strict` first.
import { createAgent } from "@rtc-agent/web/headless";

const server = "https://agent.example.com"; // your RTC Agent server
const cart: string[] = [];

const agent = await createAgent({
  serverUrl: server,
  sandboxUrl: `${server}/sdk/sandbox.html`, // the script sandbox, served with its CSP by the server
  getToken: async () => (await fetch("/my-backend/rtc-agent-token")).text(), // a JWT for the signed-in user
});

agent.registerTool({
  name: "addToCart",
  description: "Adds a product to the shopping cart.",
  parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
  execute: async ({ sku }) => {
    cart.push(sku);
    return { added: sku, items: cart.length }; // a string or JSON, for the model
  },
});

// Host tools ask the person first (work mode "edit", the default): answer with your own dialog.
const asked = new Set<string>();
agent.events.on("prompts", (prompts) => {
  for (const p of prompts) {
    if (p.kind !== "confirm" || asked.has(p.id)) continue;
    asked.add(p.id);
    // A call a running script makes (p.call) is named by what the script calls.
    const what = p.call ? `${p.call.title}: ${JSON.stringify(p.call.args)}` : `${p.rtc.tool_name} ${JSON.stringify(p.rtc.arguments)}`;
    const approved = window.confirm(`Allow ${what}?`);
    agent.answer(p.id, { type: "confirm", approved });
  }
});

// Show each finished answer of the assistant.
const answers = document.querySelector("#answers")!;
agent.events.on("change", (change) => {
  if (change.kind !== "message") return;
  const m = change.entity;
  if (m.role === "assistant" && m.status === "complete") {
    const p = document.createElement("p");
    p.textContent = m.text;
    answers.append(p);
  }
});

// Ask from a form, once connected.
const form = document.querySelector("form")!;
const input = form.querySelector("input")!;
const button = form.querySelector("button")!;
button.disabled = agent.connectionState !== "connected";
agent.events.on("state", (state) => (button.disabled = state !== "connected"));
form.addEventListener("submit", (e) => {
  e.preventDefault();
  void agent.send(input.value);
  input.value = "";
});
