// What the public types allow and refuse, checked by `tsc --strict` in
// test/e2e/pack.test.ts: each @ts-expect-error line must fail to compile (an
// unused one is itself an error), everything else must compile.
import * as headless from "@rtc-agent/web/headless";
import type { Agent, InferToolTypes, Message, Session, WorkMode, WritingCall } from "@rtc-agent/web/headless";
import { RtcAgentElement } from "@rtc-agent/web";

export async function checks(agent: Agent): Promise<void> {
  // call: the method map from the protocol.
  const got = await agent.call("v1.session.get", { session_id: "s1" });
  const title: string = got.session.title;
  const page = await agent.call("v1.session.list"); // params optional when none are required
  const more = await agent.call("v1.message.list", { session_id: "s1", limit: 50 });
  const first: Message | undefined = more.messages[0];
  // @ts-expect-error a misspelt method does not compile
  await agent.call("v1.sesion.lst");
  // @ts-expect-error wrong params do not compile
  await agent.call("v1.session.get", { id: "s1" });
  // @ts-expect-error required params cannot be left out
  await agent.call("v1.turn.stop");

  // work_mode is the union, not string.
  const s: Session | undefined = page.sessions[0];
  const mode: WorkMode | undefined = s?.work_mode;
  // @ts-expect-error an unknown mode is not a WorkMode
  await agent.setWorkMode("s1", "yolo");

  // The agent's state is read through read-only views.
  const known: ReadonlyMap<string, Session> = agent.store.sessions;
  // @ts-expect-error the maps cannot be changed from outside
  agent.store.sessions.delete("s1");
  // @ts-expect-error the lists are read-only
  agent.store.messagesOf("s1").push(first!);
  // @ts-expect-error the events can be listened to, not emitted
  agent.events.emit("leader", true);

  // Host tools: the handler's arguments are typed from the schema.
  agent.registerTool({
    name: "addToCart",
    description: "Adds a product.",
    parameters: { type: "object", properties: { sku: { type: "string" }, quantity: { type: "integer" } }, required: ["sku"], additionalProperties: false },
    handler: async ({ sku, quantity = 1 }) => `${quantity} × ${sku.toUpperCase()}`,
  });
  agent.registerTool({
    name: "wrongType",
    description: "Arguments follow the schema.",
    parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
    // @ts-expect-error sku is a string, not a number
    handler: async ({ sku }) => sku * 2,
  });
  agent.registerTool({
    name: "misspelt",
    description: "A strict schema (additionalProperties: false) names every field.",
    parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
    // @ts-expect-error skuu is not a field of the schema
    execute: async ({ skuu }) => String(skuu),
  });
  // render: the README's sample; args and output typed from the tool.
  agent.registerTool({ name: "weather", description: "The weather of a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => ({ city, sky: "sunny" }),
    render: ({ state, args, output }) => output ? `${output.city}: ${output.sky}` : `Weather for ${args?.city ?? "…"} (${state})` });
  agent.registerTool({
    name: "weatherTypo",
    description: "The view reads what execute returns.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => ({ city, sky: "sunny" }),
    // @ts-expect-error execute returns no town
    render: ({ output }) => output?.town ?? "",
  });

  void [title, mode, known];
}

// A tool map from defineTool tools types the RTCs by tool.
const tools = [
  headless.defineTool({
    name: "addToCart",
    description: "Adds a product.",
    parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
    execute: ({ sku }) => ({ added: sku, lines: 1 }),
  }),
];
export function typedCalls(untyped: Agent): string[] {
  const agent = headless.withToolTypes<InferToolTypes<typeof tools>>(untyped);
  const out: string[] = [];
  for (const r of agent.rtcs("s1")) {
    if (r.tool_name !== "addToCart") continue;
    out.push(r.arguments.sku, String(r.output?.lines));
    // @ts-expect-error skuu is not an argument of addToCart
    out.push(r.arguments.skuu);
  }
  return out;
}

// The calls the model is writing, as the README shows them.
export function writingNames(agent: Agent, sessionId: string): string[] {
  const calls: readonly WritingCall[] = agent.writingCalls(sessionId);
  agent.events.on("writing", (w: { sessionId: string }) => void w.sessionId);
  // @ts-expect-error a call being written is read-only
  if (calls[0]) calls[0].argsText = "";
  return calls.map((c) => `${c.name ?? ""} ${c.argsText}`);
}

// There is no constructor to call: agents come from createAgent.
// @ts-expect-error Agent is a type only
void new headless.Agent();
// @ts-expect-error internals are not exported
void headless.ToolRegistry;
// @ts-expect-error nor generic tool functions
void headless.read;
// The element class is exported by the main entry, not by the headless one.
const el: RtcAgentElement | null = document.querySelector("rtc-agent");
// @ts-expect-error
void headless.RtcAgentElement;
void el;
