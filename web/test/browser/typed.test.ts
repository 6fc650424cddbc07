// Typed host tools: a zod 4 schema and a plain JSON Schema give the model a JSON
// Schema, validate each call in the browser before the tool runs, and report a
// wrong argument with the field's name. The argument types are checked at
// compile time (this file is type-checked with `npm run typecheck`).

import { z } from "zod";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { ToolResult } from "./sdk.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool, type InferToolTypes } from "../../src/tools/typed.js";
import { createAgent, withToolTypes } from "../../src/agent/agent.js";
import type { Agent, AgentOptions } from "../../src/agent/types.js";
import { toolState } from "../../src/agent/toolstate.js";
import type { Rtc } from "../../src/protocol/types.js";
import { ctx, freshVfs } from "./context.js";
import { done, tab, waitFor, FakeServer } from "./executor.test.js";
import { freshDb, rtc, session } from "./entities.test.js";
import { eq, includes, test } from "./harness.js";

function output(r: ToolResult): string {
  if (!r.ok) throw new Error(`expected success, got error: ${r.error}`);
  return r.output;
}

function error(r: ToolResult): string {
  if (r.ok) throw new Error(`expected an error, got output: ${r.output}`);
  return r.error;
}

const weather = z.object({
  city: z.string().min(1).describe("City name"),
  days: z.number().int().min(1).max(7).default(3),
  units: z.enum(["metric", "imperial"]).optional(),
  stops: z.array(z.object({ name: z.string() })).optional(),
});

test("typed: a zod 4 tool offers its JSON Schema, validates, and runs with the parsed arguments", async () => {
  const reg = new ctx.sdk.ToolRegistry();
  const seen: unknown[] = [];
  reg.registerHostTool({
    name: "forecast",
    description: "Weather forecast",
    parameters: weather,
    execute: (args) => {
      // Inferred from the zod schema: these compile only with the right types.
      const city: string = args.city;
      const days: number = args.days;
      const units: "metric" | "imperial" | undefined = args.units;
      // @ts-expect-error not a field of the schema
      void args.country;
      seen.push({ city, days, units });
      return `${city} for ${days} days`;
    },
  });
  const spec = reg.list().find((t) => t.name === "forecast")!;
  const params = spec.parameters as { type: string; properties: Record<string, { type?: string }>; required: string[]; $schema?: string };
  eq(params.type, "object");
  eq(params.properties.city?.type, "string");
  eq(params.properties.days?.type, "integer");
  eq(params.required, ["city"], "days has a default, so only city is required of the model");
  eq(params.$schema, undefined, "no dialect marker for the model");
  eq(JSON.parse(JSON.stringify(spec)).name, "forecast", "the spec is plain JSON");

  const vfs = await freshVfs();
  eq(output(await reg.execute("forecast", { city: "Oslo" }, { vfs })), "Oslo for 3 days", "the default applied");
  eq(seen, [{ city: "Oslo", days: 3, units: undefined }]);

  const wrong = error(await reg.execute("forecast", { city: "Oslo", days: "5", stops: [{ name: "a" }, { name: 7 }] }, { vfs }));
  includes(wrong, "Invalid arguments for forecast");
  includes(wrong, '"days"');
  includes(wrong, '"stops[1].name"');
  const missing = error(await reg.execute("forecast", { days: 2 }, { vfs }));
  includes(missing, '"city"');
  eq(seen.length, 1, "a wrong call did not run");
});

test("typed: a plain JSON Schema tool infers its types, validates and names the field", async () => {
  const reg = new ctx.sdk.ToolRegistry();
  const seen: unknown[] = [];
  reg.registerHostTool({
    name: "addToCart",
    description: "Adds a product",
    parameters: {
      type: "object",
      properties: {
        sku: { type: "string", pattern: "^[A-Z]{3}-\\d+$" },
        qty: { type: "integer", minimum: 1 },
        options: { type: "array", items: { type: "string" } },
      },
      required: ["sku", "qty"],
      additionalProperties: false,
    },
    execute: (args) => {
      const sku: string = args.sku;
      const qty: number = args.qty;
      const options: string[] | undefined = args.options;
      // @ts-expect-error not a field of the schema
      void args.price;
      seen.push({ sku, qty, options });
      return { added: qty };
    },
  });
  const vfs = await freshVfs();
  eq(output(await reg.execute("addToCart", { sku: "ABC-12", qty: 2 }, { vfs })), '{"added":2}');
  const e1 = error(await reg.execute("addToCart", { sku: "ABC-12", qty: "2" }, { vfs }));
  includes(e1, '"qty"');
  includes(e1, "integer");
  const e2 = error(await reg.execute("addToCart", { qty: 0, options: ["a", 3], colour: "red" }, { vfs }));
  includes(e2, '"sku": is required');
  includes(e2, '"qty"');
  includes(e2, '"options[1]"');
  includes(e2, '"colour": is not an allowed property');
  const e3 = error(await reg.execute("addToCart", { sku: "abc", qty: 1 }, { vfs }));
  includes(e3, '"sku"');
  eq(seen.length, 1, "only the valid call ran");
});

test("typed: a Standard Schema without a JSON Schema converter needs jsonSchema", async () => {
  // A minimal Standard Schema, as a library other than zod would give it.
  const positive: StandardSchemaV1<{ n: number }> = {
    "~standard": {
      version: 1,
      vendor: "handmade",
      validate: (v) => {
        const n = (v as { n?: unknown })?.n;
        return typeof n === "number" && n > 0 ? { value: { n } } : { issues: [{ message: "must be a positive number", path: [{ key: "n" }] }] };
      },
    },
  };
  const reg = new ToolRegistry();
  let threw = "";
  try {
    reg.registerHostTool({ name: "inc", description: "x", parameters: positive, execute: (a) => a.n + 1 });
  } catch (err) {
    threw = (err as Error).message;
  }
  includes(threw, "cannot convert itself to JSON Schema");
  reg.registerHostTool({ name: "inc", description: "x", parameters: positive, jsonSchema: { type: "object", properties: { n: { type: "number" } } }, execute: (a) => a.n + 1 });
  eq(reg.get("inc")?.parameters, { type: "object", properties: { n: { type: "number" } } });
  const vfs = await freshVfs();
  eq(output(await reg.execute("inc", { n: 1 }, { vfs })), "2");
  eq(error(await reg.execute("inc", { n: -1 }, { vfs })), 'Invalid arguments for inc; correct these fields and call it again:\n- "n": must be a positive number');
  // A script's rtcAgent.call goes through the same check.
  let scriptErr = "";
  await reg.callHost("inc", { n: "x" }).catch((e: Error) => (scriptErr = e.message));
  includes(scriptErr, '"n": must be a positive number');
  eq(await reg.callHost("inc", { n: 4 }), 5, "the raw value for a script");
});

test("typed: the executor fails a wrong call without asking and without running it", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `typed-${Date.now()}`);
  const tools = (t.ex as unknown as { d: { tools: ToolRegistry } }).d.tools;
  const ran: number[] = [];
  tools.registerHostTool({ name: "setQty", description: "x", parameters: z.object({ qty: z.number().int() }), execute: (a) => (ran.push(a.qty), "set") });
  await waitFor("leadership", () => t.ex.isLeader);
  // s3 is in manual mode: a valid call would ask first.
  await server.deliver(rtc("q1", 0, { session_id: "s3", tool_name: "setQty", arguments: { qty: "many" }, needs_confirmation: true }));
  await waitFor("the failure", () => server.rtcs.get("q1")?.status === "failed");
  includes(server.rtcs.get("q1")!.error!, '"qty"');
  eq(t.prompts.list().length, 0, "nobody was asked");
  eq(ran, [], "not run");
  eq(server.count("v1.rtc.update_status", "q1"), 0, "not claimed");
  done(t);
});

test("typed: needsApproval false runs without asking, a function asks by the arguments", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `na-${Date.now()}`);
  const tools = (t.ex as unknown as { d: { tools: ToolRegistry } }).d.tools;
  const ran: string[] = [];
  tools.registerHostTool({ name: "peek", description: "x", parameters: { type: "object" }, needsApproval: false, execute: () => (ran.push("peek"), "ok") });
  tools.registerHostTool({
    name: "pay",
    description: "x",
    parameters: z.object({ amount: z.number() }),
    needsApproval: (a) => a.amount > 100,
    execute: (a) => (ran.push(`pay ${a.amount}`), "paid"),
  });
  eq(tools.list().find((x) => x.name === "peek")?.approval, "never");
  eq(tools.list().find((x) => x.name === "pay")?.approval, "arguments");
  await waitFor("leadership", () => t.ex.isLeader);
  // s4 is in edit mode, where host tools ask.
  await server.deliver(rtc("p1", 0, { session_id: "s4", tool_name: "peek", arguments: {} }));
  await waitFor("peek", () => server.rtcs.get("p1")?.status === "completed");
  await server.deliver(rtc("p2", 0, { session_id: "s4", tool_name: "pay", arguments: { amount: 5 } }));
  await waitFor("small payment", () => server.rtcs.get("p2")?.status === "completed");
  eq(t.prompts.list().length, 0, "neither asked");
  await server.deliver(rtc("p3", 0, { session_id: "s4", tool_name: "pay", arguments: { amount: 500 } }));
  await waitFor("the question", () => t.prompts.list().length === 1);
  eq(ran, ["peek", "pay 5"], "the large payment waits");
  t.prompts.answer("p3", { type: "confirm", approved: true });
  await waitFor("large payment", () => server.rtcs.get("p3")?.status === "completed");
  eq(ran, ["peek", "pay 5", "pay 500"]);
  done(t);
});

test("typed: needsApproval true, or a function that returns true, asks in bypass mode too", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `floor-${Date.now()}`);
  const tools = (t.ex as unknown as { d: { tools: ToolRegistry } }).d.tools;
  const ran: string[] = [];
  tools.registerHostTool({ name: "payInvoice", description: "x", parameters: { type: "object" }, needsApproval: true, execute: () => (ran.push("invoice"), "ok") });
  tools.registerHostTool({
    name: "pay",
    description: "x",
    parameters: z.object({ amount: z.number() }),
    needsApproval: (a) => a.amount > 100,
    execute: (a) => (ran.push(`pay ${a.amount}`), "paid"),
  });
  await t.store.merge([{ kind: "session", entity: session("sb", 500, { work_mode: "bypass" }) }]);
  await waitFor("leadership", () => t.ex.isLeader);
  await server.deliver(rtc("b1", 0, { session_id: "sb", tool_name: "payInvoice", arguments: {} }));
  await waitFor("the invoice question", () => t.prompts.list().length === 1);
  eq(ran, [], "bypass does not lower needsApproval: true");
  t.prompts.answer("b1", { type: "confirm", approved: true });
  await waitFor("invoice paid", () => server.rtcs.get("b1")?.status === "completed");
  await server.deliver(rtc("b2", 0, { session_id: "sb", tool_name: "pay", arguments: { amount: 5 } }));
  await waitFor("small payment", () => server.rtcs.get("b2")?.status === "completed");
  await server.deliver(rtc("b3", 0, { session_id: "sb", tool_name: "pay", arguments: { amount: 500 } }));
  await waitFor("the payment question", () => t.prompts.list().length === 1);
  eq(ran, ["invoice", "pay 5"], "the large payment waits in bypass too");
  t.prompts.answer("b3", { type: "confirm", approved: true });
  await waitFor("large payment", () => server.rtcs.get("b3")?.status === "completed");
  done(t);
});

test("approvals: allow for this chat is sent as scope session; the session's approval skips asking; protected paths and denials", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `chat-${Date.now()}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const exec = (id: string) => server.calls.find((c) => c.method === "v1.rtc.update_status" && c.params.rtc_id === id && c.params.status === "executing");

  // s3 is in manual mode: a write asks, with "Allow for this chat" on offer.
  await server.deliver(rtc("w1", 0, { session_id: "s3", tool_name: "write", arguments: { path: "/n.md", content: "1" }, needs_confirmation: true }));
  await waitFor("the question", () => t.prompts.list().length === 1);
  eq(t.prompts.list()[0]!.allowForChat, true);
  t.prompts.answer("w1", { type: "confirm", approved: true, scope: "session" });
  await waitFor("w1 done", () => server.rtcs.get("w1")?.status === "completed");
  eq(exec("w1")?.params.approval, { scope: "session" });

  // The server stored it on the session: the next write runs without asking.
  await t.store.merge([{ kind: "session", entity: session("s3", 500, { work_mode: "manual", approvals: [{ tool: "write", device_id: "d1", rtc_id: "w1", granted_at: "2026-01-01T00:00:00Z" }] }) }]);
  await server.deliver(rtc("w2", 0, { session_id: "s3", tool_name: "write", arguments: { path: "/m.md", content: "2" } }));
  await waitFor("w2 done", () => server.rtcs.get("w2")?.status === "completed");
  eq(exec("w2")?.params.approval, { scope: "session", standing: true });
  eq(await t.vfs.readFile("/m.md"), "2");

  // /AGENT.md asks even so (and even when a faulty server says it need not); no allow-for-chat there.
  await server.deliver(rtc("w3", 0, { session_id: "s3", tool_name: "write", arguments: { path: "/AGENT.md", content: "x" } }));
  await waitFor("the protected question", () => t.prompts.list().length === 1);
  eq(t.prompts.list()[0]!.allowForChat, undefined);
  // Denied with a reason: the model reads it; the person's words go with the decision.
  t.prompts.answer("w3", { type: "confirm", approved: false, reason: "  keep the instructions as they are " });
  await waitFor("w3 rejected", () => server.rtcs.get("w3")?.status === "rejected");
  const rej = server.calls.find((c) => c.params.rtc_id === "w3" && c.params.status === "rejected")!;
  eq(rej.params.reason, "the user declined this write call: keep the instructions as they are");
  eq(rej.params.approval, { scope: "once", reason: "keep the instructions as they are" });
  eq(await t.vfs.readFile("/AGENT.md").catch(() => null), null, "not written");

  // Revoked (the session without approvals): a write asks again.
  await t.store.merge([{ kind: "session", entity: session("s3", 501, { work_mode: "manual" }) }]);
  await server.deliver(rtc("w4", 0, { session_id: "s3", tool_name: "write", arguments: { path: "/o.md", content: "4" } }));
  await waitFor("asked again", () => t.prompts.list().length === 1);
  t.prompts.answer("w4", { type: "confirm", approved: true });
  await waitFor("w4 done", () => server.rtcs.get("w4")?.status === "completed");
  eq(exec("w4")?.params.approval, { scope: "once" });
  done(t);
});

test("tool states: one mapping from RTC status and prompt to the names UIs use", () => {
  const p = (kind: "confirm" | "ask", r: ReturnType<typeof rtc>) => ({ id: r.id, kind, rtc: r });
  const r = (status: Rtc["status"], extra: Partial<Rtc> = {}) => rtc("st", 0, { status, ...extra });
  eq(toolState(undefined), "input-streaming");
  eq(toolState(r("queued")), "running");
  eq(toolState(r("queued", { needs_confirmation: true })), "running", "waits for the call before it");
  eq(toolState(r("pending", { needs_confirmation: true })), "awaiting-approval");
  eq(toolState(r("sent"), p("confirm", r("sent"))), "awaiting-approval", "a question the page asks on its own");
  eq(toolState(r("pending", { tool_name: "askUser" })), "awaiting-input");
  eq(toolState(r("executing")), "running");
  eq(toolState(r("completed")), "done");
  eq(toolState(r("rejected")), "denied");
  eq(toolState(r("failed")), "error");
  eq(toolState(r("timeout")), "error");
});

// Compile-time only (`npm run typecheck` fails when an expected error is gone):
// every tool of `createAgent({tools})` is typed by its own schema, a tool kept in
// a variable is typed by `defineTool`, and a tool written against the erased
// `AgentOptions` (element.options) reads no field unchecked.
export function typedToolsOption(): void {
  const city = z.object({ city: z.string() });
  const getToken = async () => "token";
  void createAgent({
    getToken,
    tools: [
      { name: "ok", description: "x", parameters: city, execute: ({ city }) => city.toUpperCase() },
      // @ts-expect-error: `citty` is not a field of the tool's zod schema
      { name: "typo", description: "x", parameters: city, execute: ({ citty }) => citty },
      {
        name: "strict",
        description: "x",
        parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
        // @ts-expect-error: `n` is a number by its JSON Schema
        execute: ({ n }) => n.toUpperCase(),
      },
    ],
  });
  const kept = [defineTool({ name: "kept", description: "x", parameters: city, needsApproval: ({ city }) => city === "Paris", execute: ({ city }) => city })];
  void createAgent({ getToken, tools: kept });
  const options: Partial<AgentOptions> = {
    tools: [
      ...kept,
      // @ts-expect-error: written against AgentOptions, a tool's arguments have no fields until defineTool types them
      { name: "erased", description: "x", parameters: city, execute: ({ city }) => city },
    ],
  };
  void options;
}

// Compile-time only: a tool map from `defineTool` tools (`InferToolTypes`) types
// the agent's RTCs and prompts by tool: comparing `tool_name` narrows the
// arguments and the output to that tool's; other tools' calls stay unknown.
export function typedRtcs(agent: Agent<InferToolTypes<typeof mapTools>>): void {
  for (const r of agent.rtcs("s")) {
    if (r.tool_name === "bookFlight") {
      const city: string = r.arguments.city;
      const seats: number | undefined = r.output?.seats;
      // @ts-expect-error: `citty` is not an argument of bookFlight
      void r.arguments.citty;
      // @ts-expect-error: bookFlight's output has no `price`
      void r.output?.price;
      void [city, seats];
    } else if (r.tool_name === "count") {
      // @ts-expect-error: count's output is a number
      void r.output?.toUpperCase();
    } else {
      // A built-in or MCP tool: its arguments are whatever the model wrote.
      const args: unknown = r.arguments;
      // @ts-expect-error: unknown until checked
      void args.path;
    }
  }
  for (const p of agent.prompts()) {
    // @ts-expect-error: no tool of the map is called `bookFlights`
    if (p.rtc.tool_name === "bookFlights") void p;
  }
  // Without a map, the plain Rtc: `arguments` is unknown.
  const plain: Agent = agent as unknown as Agent;
  // @ts-expect-error: an untyped RTC's arguments have no known fields
  void plain.rtcs("s")[0]?.arguments.city;
}

// As the README shows it: the agent createAgent gives, typed by the tool map.
export async function typedAgent(): Promise<Agent<InferToolTypes<typeof mapTools>>> {
  return withToolTypes<InferToolTypes<typeof mapTools>>(await createAgent({ getToken: async () => "token", tools: mapTools }));
}

const mapTools = [
  defineTool({ name: "bookFlight", description: "x", parameters: z.object({ city: z.string() }), execute: async ({ city }) => ({ booked: city, seats: 2 }) }),
  defineTool({
    name: "count",
    description: "x",
    parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
    execute: ({ n }) => n * 2,
  }),
];
