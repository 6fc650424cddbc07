// AG-UI: the real @ag-ui/client HttpAgent, in Node, against the server's
// /ag-ui endpoint: a text turn, a frontend tool answered by the client, the
// same result sent again from a second client, a reload while the call is
// pending, and the server killed (SIGKILL) while a call is pending and while
// the answer streams; and in Chromium, the example page (examples/ag-ui) on
// another origin under a strict CSP.

import { HttpAgent, type BaseEvent, type Message, type Tool } from "@ag-ui/client";
import { defer, eq, includes, ok, test } from "./harness.js";
import { host, paths } from "./context.js";
import { call, cspViolations, newProfile, turn } from "./pages.js";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin, buildAgUiExample, GoServer } from "./servers.js";

const weather: Tool = {
  name: "get_weather",
  description: "The weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
};

const script = {
  name: "ag-ui",
  turns: [
    turn("(?i)weather", [{ text: "Let me check.", tool_calls: [call("get_weather", { city: "Paris" })] }, { chunks: ["It is ", "{{last_result}}", " in Paris."] }]),
    turn("(?i)colour", [{ text: "Asking the server.", tool_calls: [call("test__ask", { question: "Which colour?" })] }, { chunks: ["After: ", "{{last_result}}"] }]),
    turn("(?i)slow", [{ chunks: ["One, ", "two, ", "three, ", "four, ", "five."], delay_ms: 400 }]),
    { steps: [{ chunks: ["Hello ", "from ", "RTC Agent."] }] },
  ],
};

async function agent(go: GoServer, threadId: string, user = "agui-user"): Promise<HttpAgent> {
  return new HttpAgent({ url: `${go.url}/ag-ui`, threadId, headers: { Authorization: `Bearer ${await go.token(user)}` } });
}

/** Runs the agent once and returns the events it received. */
async function runOnce(a: HttpAgent, params: { tools?: Tool[] } = {}): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await a.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

const types = (events: BaseEvent[]): string[] => events.map((e) => e.type);
const finished = (events: BaseEvent[]) => events.find((e) => e.type === "RUN_FINISHED") as (BaseEvent & { outcome?: { type: string; pendingToolCallIds?: string[] } }) | undefined;
const lastText = (ms: Message[]) => {
  const m = ms.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content).at(-1);
  return m && "content" in m ? String(m.content) : "";
};

function user(text: string): Message {
  return { id: crypto.randomUUID(), role: "user", content: text };
}

/** Runs until the agent's frontend tool is pending and returns its call id. */
async function askWeather(a: HttpAgent): Promise<string> {
  a.addMessage(user("What is the weather?"));
  const events = await runOnce(a, { tools: [weather] });
  const pending = finished(events)?.outcome?.pendingToolCallIds ?? [];
  eq(pending.length, 1, "one call pending");
  const start = events.find((e) => e.type === "TOOL_CALL_START") as BaseEvent & { toolCallName: string; toolCallId: string };
  eq(start.toolCallName, "get_weather");
  eq(start.toolCallId, pending[0]);
  return pending[0]!;
}

function answer(a: HttpAgent, toolCallId: string, content: string): void {
  a.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId, content });
}

test("ag-ui: a text turn streams as AG-UI events to HttpAgent", async () => {
  const go = await GoServer.start({ script });
  const a = await agent(go, "thread-text");
  a.addMessage(user("Hello"));
  const events = await runOnce(a);
  eq(types(events)[0], "RUN_STARTED");
  ok(types(events).includes("STEP_STARTED") && types(events).includes("STEP_FINISHED"), `steps: ${types(events).join(",")}`);
  eq(events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").length, 3, "three chunks from the Live channel");
  eq(finished(events)?.outcome?.type, "success");
  eq(lastText(a.messages), "Hello from RTC Agent.");
});

test("ag-ui: a frontend tool is an RTC the client answers in its next run", async () => {
  const go = await GoServer.start({ script });
  const a = await agent(go, "thread-tool");
  const id = await askWeather(a);
  const rtc = await go.rpc<{ rtc: { status: string; tool_name: string } }>("agui-user", "ag-ui", "v1.rtc.get", { rtc_id: id });
  eq(rtc.rtc.tool_name, "get_weather");
  eq(rtc.rtc.status, "pending", "the call waits for the client");
  answer(a, id, "sunny");
  const events = await runOnce(a);
  eq(finished(events)?.outcome?.type, "success");
  eq(lastText(a.messages), "It is sunny in Paris.");
});

test("ag-ui: the same result sent again, from a second client, changes nothing", async () => {
  const go = await GoServer.start({ script });
  const a = await agent(go, "thread-dup");
  const id = await askWeather(a);
  answer(a, id, "sunny");
  const sent = [...a.messages];
  await runOnce(a);
  // A second tab re-sends what the first sent, then a different answer to the same call.
  const b = await agent(go, "thread-dup");
  b.setMessages(sent);
  await runOnce(b);
  b.setMessages([...sent.slice(0, -1), { id: crypto.randomUUID(), role: "tool", toolCallId: id, content: "rainy" }]);
  const events = await runOnce(b);
  eq(finished(events)?.outcome?.type, "success");
  const rtc = await go.rpc<{ rtc: { output: string; client_id: string } }>("agui-user", "ag-ui", "v1.rtc.get", { rtc_id: id });
  eq(rtc.rtc.output, "sunny", "applied once");
  const turns = await go.rpc<{ turns: unknown[] }>("agui-user", "ag-ui", "v1.turn.list", { session_id: (await go.rpc<{ rtc: { session_id: string } }>("agui-user", "ag-ui", "v1.rtc.get", { rtc_id: id })).rtc.session_id });
  eq(turns.turns.length, 1, "no second turn");
  eq(lastText(b.messages), "It is sunny in Paris.", "the second client shows the thread as it is");
});

test("ag-ui: a reload while a call is pending finds it pending, and answering it ends the turn", async () => {
  const go = await GoServer.start({ script });
  const id = await askWeather(await agent(go, "thread-reload"));
  const b = await agent(go, "thread-reload"); // a reloaded page: no messages
  const events = await runOnce(b);
  ok(types(events).includes("MESSAGES_SNAPSHOT"), "the thread is sent whole");
  eq(finished(events)?.outcome?.pendingToolCallIds, [id]);
  const asked = b.messages.find((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.id === id));
  ok(asked, "the snapshot holds the pending call");
  answer(b, id, "windy");
  await runOnce(b);
  eq(lastText(b.messages), "It is windy in Paris.");
});

test("ag-ui: the server killed with a call pending, or while it streams; the thread goes on", async () => {
  const go = await GoServer.start({ script });
  const a = await agent(go, "thread-kill");
  const id = await askWeather(a);
  await go.kill("SIGKILL");
  await go.start();
  answer(a, id, "foggy");
  await runOnce(a);
  eq(lastText(a.messages), "It is foggy in Paris.");

  // HttpAgent 1.0.0 rejects runAgent when the connection breaks, and also
  // leaves a second promise with the same error unhandled: note it, as a page
  // would see it in its console, instead of letting it end the test process.
  const leaked: unknown[] = [];
  const onLeak = (err: unknown) => void leaked.push(err);
  process.on("unhandledRejection", onLeak);
  defer(() => void process.off("unhandledRejection", onLeak));
  a.addMessage(user("Count slowly"));
  const events: BaseEvent[] = [];
  const first = a.runAgent({}, { onEvent: ({ event }) => void events.push(event) }).then(
    () => "finished",
    (err: unknown) => String(err),
  );
  for (let i = 0; i < 200 && !events.some((e) => e.type === "TEXT_MESSAGE_CONTENT"); i++) await new Promise((r) => setTimeout(r, 25));
  await go.kill("SIGKILL");
  ok((await first) !== "finished", "the run broke with the server");
  await go.start();
  const again = await runOnce(a);
  ok(!types(again).includes("RUN_ERROR"), `no error after the restart: ${types(again).join(",")}`);
  includes(lastText(a.messages), "five.");
});

test("ag-ui: the example page in Chromium, on another origin: a pending call survives a reload and a kill -9", async () => {
  const go = await GoServer.start({ script });
  await buildAgUiExample(paths);
  const ctx = await newProfile();
  const violations = await cspViolations(ctx);
  const page = await ctx.newPage();
  const q = new URLSearchParams({ server: go.url, user: "agui-page" });
  await page.goto(`http://localhost:${host.port}/ag-ui/index.html?${q}`);
  await page.locator(".status[data-state='idle']").waitFor();
  await page.getByLabel("Message").fill("What is the weather?");
  await page.getByRole("button", { name: "Send" }).click();
  const runTool = page.getByRole("button", { name: 'Run get_weather({"city":"Paris"})' });
  await runTool.waitFor();
  await page.locator(".status[data-state='waiting']").waitFor();
  // A reload finds the call still pending (the thread as the server holds it).
  await page.reload();
  await runTool.waitFor();
  await page.locator(".messages li.assistant", { hasText: "Let me check." }).waitFor();
  // So does the page after the server was killed and started again.
  await go.kill("SIGKILL");
  await go.start();
  await runTool.click();
  await page.locator(".messages li.assistant", { hasText: "It is sunny and 21 °C in Paris in Paris." }).waitFor();
  await page.locator(".status[data-state='idle']").waitFor();
  eq(await runTool.count(), 0, "nothing pending");
  eq(violations, [], "no CSP violation");
});

test("ag-ui: an MCP call's approval and its server's question are interrupts the client resumes", async () => {
  const config = join(tmpdir(), `rtc-e2e-agui-mcp-${process.pid}.json`);
  await writeFile(config, JSON.stringify({ servers: { test: { command: bin.mcpserver } } }));
  const go = await GoServer.start({ script, args: ["-mcp-config", config] });
  const a = await agent(go, "thread-interrupts");
  type Interrupt = { id: string; reason: string; message?: string; toolCallId?: string; responseSchema?: { properties?: object } };
  const interrupts = (events: BaseEvent[]) => (finished(events)?.outcome as { type: string; interrupts?: Interrupt[] } | undefined)?.interrupts ?? [];
  a.addMessage(user("Which colour?"));
  const [approval] = interrupts(await runOnce(a));
  eq(approval?.reason, "tool_approval");
  ok(approval?.toolCallId, "the approval names the call");
  const [question] = interrupts(await runOnceResume(a, [{ interruptId: approval!.id, status: "resolved", payload: { approved: true } }]));
  eq(question?.reason, "input_required");
  eq(question?.message, "Which colour?");
  ok(question?.responseSchema?.properties && "answer" in question.responseSchema.properties, "the form's schema");
  const events = await runOnceResume(a, [{ interruptId: question!.id, status: "resolved", payload: { answer: "teal" } }]);
  eq(finished(events)?.outcome?.type, "success");
  includes(lastText(a.messages), 'accept {"answer":"teal"}');
});

async function runOnceResume(a: HttpAgent, resume: { interruptId: string; status: "resolved" | "cancelled"; payload?: unknown }[]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await a.runAgent({ resume }, { onEvent: ({ event }) => void events.push(event) });
  return events;
}
