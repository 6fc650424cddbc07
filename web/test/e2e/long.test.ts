// Tests 11-15: long sessions in the UI against the real server.
//  11 close and reopen, followed live by a second tab;
//  12 fork from an edited user message, seen in a second tab, the source unchanged;
//  13 /AGENT.md goes with every message (capped at 32 KiB); usage in the header;
//  14 Retry of a failed turn and of a stopped one (v1.turn.retry);
//  15 /compact and the summary card (v1.session.compact).
// What the page sends is read from its WebSocket frames; what the server made of
// it is read back from the server.

import type { Locator } from "playwright-core";
import { defer, eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GoServer } from "./servers.js";

const ask = { questions: [{ question: "Wait for me?", options: [{ label: "Yes" }, { label: "No" }] }] };
const script = {
  name: "long",
  turns: [
    turn("(?i)flaky", [{ text: "Partial answer", error: { category: "provider_unavailable", retryable: true, message: "overloaded" } }]),
    turn("(?i)please wait", [{ text: "Asking.", tool_calls: [call("askUser", ask)] }, { chunks: ["After the question: ", "{{last_result}}"] }]),
    turn("(?i).", [{ chunks: ["Reply to: ", "{{user}}"] }]),
  ],
};

const composer = (p: AgentPage) => p.page.locator("rtc-agent textarea[aria-label='Message']");
const closedBar = (p: AgentPage) => p.page.locator("rtc-agent .closed-bar");
const userTexts = (p: AgentPage) => p.page.locator("rtc-agent .msg.user .text").allInnerTexts();

/** The page's agent, for reads in page.evaluate. */
type PageAgent = import("../../src/index.js").Agent;

async function sessionIdOf(p: AgentPage, title: string): Promise<string> {
  return until(`the session ${JSON.stringify(title)}`, async () => (await p.snapshot()).sessions.find((s) => s.title === title)?.id);
}

async function openById(p: AgentPage, id: string): Promise<void> {
  await p.page.locator(`rtc-agent aside.sessions li[data-id="${id}"]`).click();
}

async function closedState(p: AgentPage): Promise<boolean> {
  return (await composer(p).isDisabled()) && (await closedBar(p).isVisible()) && !(await p.page.locator("rtc-agent button.close-session").isVisible());
}

async function openState(p: AgentPage): Promise<boolean> {
  return !(await composer(p).isDisabled()) && !(await closedBar(p).isVisible()) && (await p.page.locator("rtc-agent button.close-session").isVisible());
}

test("11 close and reopen: the composer and the list follow in another tab", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const url = host.url(go, { user: "close-user" });
  const a = await AgentPage.open(ctx, url);
  const b = await AgentPage.open(ctx, url);
  await a.send("hello there");
  await a.waitForAnswer("Reply to: hello there");
  const id = await sessionIdOf(b, "hello there");
  await openById(b, id);
  await b.waitForAnswer("Reply to: hello there");

  await a.page.locator("rtc-agent button.close-session").click();
  await until("tab A to show the closed state", () => closedState(a));
  await until("tab B to follow", () => closedState(b));
  includes(await b.page.locator(`rtc-agent aside.sessions li[data-id="${id}"] .meta`).innerText(), "closed");
  eq((await go.rpc<{ session: { status: string } }>("close-user", "any", "v1.session.get", { session_id: id })).session.status, "closed", "closed on the server");
  const refused = await b.page.evaluate(
    (sid) => ((document.querySelector("rtc-agent") as unknown as { agent: PageAgent }).agent.send("sneaked in", { sessionId: sid }) as Promise<unknown>).then(() => "sent", (e: { code?: string }) => e.code ?? "error"),
    id,
  );
  eq(refused, "conflict", "the server refuses messages to a closed session");

  await b.page.locator("rtc-agent .closed-bar button.reopen").click();
  await until("tab B open again", () => openState(b));
  await until("tab A to follow", () => openState(a));
  await a.send("after reopening");
  await a.waitForAnswer("Reply to: after reopening");
  await b.waitForAnswer("Reply to: after reopening");
  eq([...a.noErrors(), ...b.noErrors()], [], "no page errors");
});

test("12 fork: an edited user message starts a new session, seen in the other tab; the source stays", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const url = host.url(go, { user: "fork-user" });
  const a = await AgentPage.open(ctx, url);
  const b = await AgentPage.open(ctx, url);
  await a.send("first question");
  await a.waitForAnswer("Reply to: first question");
  await a.send("second question");
  await a.waitForAnswer("Reply to: second question");
  const source = await sessionIdOf(a, "first question");

  const bubble = a.page.locator("rtc-agent .msg.user", { hasText: "second question" });
  await bubble.hover(); // the Fork button shows on hover
  await bubble.locator("button.fork").click();
  const editor = a.page.locator("rtc-agent form.forking textarea");
  eq(await editor.inputValue(), "second question", "the editor starts with the message");
  await editor.fill("second question, edited");
  await editor.press("Enter");
  await a.waitForAnswer("Reply to: second question, edited");
  const forked = await sessionIdOf(a, "first question (fork)");
  eq(await userTexts(a), ["first question", "second question, edited"], "the fork: the earlier turn copied, the edited message answered");
  const sent = a.calls("v1.session.fork");
  eq(sent.length, 1, "one fork call");
  eq([sent[0]!.data.session_id, sent[0]!.data.text], [source, "second question, edited"]);
  ok(typeof sent[0]!.data.client_id === "string" && typeof sent[0]!.data.message_id === "string", "with a client_id and the message");

  await openById(b, forked);
  await b.waitForAnswer("Reply to: second question, edited");
  eq(await userTexts(b), ["first question", "second question, edited"], "the other tab shows the fork");
  await openById(b, source);
  await b.waitForAnswer("Reply to: second question");
  eq(await userTexts(b), ["first question", "second question"], "the source is unchanged");
  eq([...a.noErrors(), ...b.noErrors()], [], "no page errors");
});

test("13 /AGENT.md goes with every message (capped at 32 KiB); usage in the header follows the session", async () => {
  // A price for the scripted model.
  const prices = join(tmpdir(), `rtc-e2e-prices-${process.pid}.json`);
  await writeFile(prices, JSON.stringify({ [`scripted:${script.name}`]: { input_per_mtok: 3, output_per_mtok: 15 } }));
  defer(() => rm(prices, { force: true }));
  const go = await GoServer.start({ script, args: ["-prices", prices] });
  const a = await AgentPage.open(await newProfile(), host.url(go, { user: "agentmd-user" }));
  const writeAgentMd = (text: string | null) =>
    a.page.evaluate(async (t) => {
      const vfs = (document.querySelector("rtc-agent") as unknown as { agent: PageAgent }).agent.vfs;
      if (t === null) await vfs.remove("/AGENT.md");
      else await vfs.writeFile("/AGENT.md", t);
    }, text);
  const lastContext = () => {
    const sends = a.calls("v1.message.send");
    return (sends[sends.length - 1]?.data.context as { agent_md?: string } | undefined)?.agent_md;
  };

  await a.send("no file yet");
  await a.waitForAnswer("Reply to: no file yet");
  eq(lastContext(), undefined, "no /AGENT.md: no context");

  const usage = a.page.locator("rtc-agent .bar .usage");
  await until("the usage in the header", () => usage.isVisible());
  const id = await sessionIdOf(a, "no file yet");
  const server = async () => (await go.rpc<{ session: { usage: { input_tokens: number; output_tokens: number; cost_usd?: number }; context_tokens: number } }>("agentmd-user", "any", "v1.session.get", { session_id: id })).session;
  const first = await server();
  ok(first.usage.input_tokens > 0 && first.usage.output_tokens > 0, "the server counted tokens");
  await until("the header to match the server", async () => (await usage.getAttribute("title"))?.includes(`${first.usage.input_tokens.toLocaleString("en-US")} in, ${first.usage.output_tokens.toLocaleString("en-US")} out`));
  const text1 = await usage.innerText();
  ok(/^\S+ in · \S+ out( · \S*\$\S+)? · context \S+$/.test(text1), `the header line: ${text1}`);
  ok(typeof first.usage.cost_usd === "number" && first.usage.cost_usd > 0, `the server priced the tokens: ${JSON.stringify(first.usage)}`);
  includes(text1, "$", "the cost in the header");
  includes((await usage.getAttribute("title")) ?? "", `$${first.usage.cost_usd!.toFixed(6)}`, "exact in the tooltip");

  const md = "# Test host\nThe user's shop sells tea. Prices are in euros.\n";
  await writeAgentMd(md);
  await a.send("with the file");
  await a.waitForAnswer("Reply to: with the file");
  eq(lastContext(), md, "the file as it is");
  const second = await server();
  ok(second.usage.input_tokens > first.usage.input_tokens, "more tokens after a second turn");
  await until("the header to follow session.updated", async () => (await usage.getAttribute("title"))?.includes(`${second.usage.input_tokens.toLocaleString("en-US")} in`));

  await writeAgentMd("# Long\n" + "Every product has a long description. ".repeat(1500)); // about 57 KB
  await a.send("with a long file");
  await a.waitForAnswer("Reply to: with a long file");
  const capped = lastContext() ?? "";
  ok(new TextEncoder().encode(capped).length <= 32 * 1024, `at most 32 KiB: ${capped.length}`);
  ok(capped.startsWith("# Long\nEvery product"), "its beginning");
  ok(/\[AGENT\.md truncated: the first \d+ of \d+ bytes are shown; the rest is left out\.\]$/.test(capped), "a clear note at the cut");

  // The server keeps context.agent_md with the user message (within its 32 KiB limit).
  const list = await go.rpc<{ messages: { role: string; text: string; context?: { agent_md?: string } }[] }>("agentmd-user", "any", "v1.message.list", { session_id: id });
  const stored = (text: string) => list.messages.find((m) => m.role === "user" && m.text === text)?.context?.agent_md;
  eq(stored("no file yet"), undefined, "none stored without the file");
  eq(stored("with the file"), md, "the server has the file");
  eq(stored("with a long file"), capped, "and accepted the capped one");

  await writeAgentMd(null);
  await a.send("file removed");
  await a.waitForAnswer("Reply to: file removed");
  eq(lastContext(), undefined, "removed: no context");
  eq(a.noErrors(), [], "no page errors");
});

/** The Retry button of a turn, wherever it shows. */
const retryOf = (p: AgentPage, turnId: string): Locator => p.page.locator(`rtc-agent button.retry[data-turn="${turnId}"]`);

async function turnIds(p: AgentPage, sessionId: string): Promise<string[]> {
  return p.page.evaluate((sid) => (document.querySelector("rtc-agent") as unknown as { agent: PageAgent }).agent.turns(sid).map((t) => t.id), sessionId);
}

test("14 retry: a failed turn's error and a stopped turn offer Retry (v1.turn.retry)", async () => {
  const go = await GoServer.start({ script });
  const a = await AgentPage.open(await newProfile(), host.url(go, { user: "retry-user" }));
  await a.send("flaky answer please");
  const error = a.page.locator("rtc-agent .msg.assistant[data-status='error']");
  await error.first().waitFor();
  includes(await error.first().innerText(), "unavailable", "the error for people");
  const id = await sessionIdOf(a, "flaky answer please");
  const [failed] = await turnIds(a, id);
  const button = retryOf(a, failed!);
  await button.waitFor();
  await button.click();
  const sent = await until("the retry call", () => a.calls("v1.turn.retry")[0]);
  eq([sent.data.session_id, sent.data.turn_id], [id, failed], "the session and its failed turn");
  eq(sent.data.client_id, `retry:${failed}`, "the turn's own key: a repeat from anywhere asks for the same retry");

  // The scripted model fails the same way again: a new turn, with its own error and Retry.
  const next = await until("a second turn", async () => (await turnIds(a, id))[1]);
  await retryOf(a, next).waitFor({ timeout: 20_000 });
  eq(await error.count(), 2, "both errors stay in the history");
  eq(await retryOf(a, failed!).count(), 0, "the older turn is no longer offered");
  eq((sent.reply?.result as { turn_id?: string } | undefined)?.turn_id, next, "the call's answer names the new turn");
  const repeat = await a.page.evaluate(
    ([sid, tid]) => (document.querySelector("rtc-agent") as unknown as { agent: PageAgent }).agent.retry(sid!, tid!).then((r) => r.turn_id, (e: { code?: string }) => `error ${e.code}`),
    [id, failed],
  );
  eq(repeat, next, "asking again (another tab, after a reload) gets the same retry, not a second one");
  eq((await turnIds(a, id)).length, 2, "still two turns");

  // A stopped turn: Retry at the end of the conversation.
  await a.page.locator("rtc-agent button.new").click();
  await a.send("please wait");
  await a.page.locator("rtc-agent form.prompt.ask").waitFor();
  await a.page.locator("rtc-agent button.stop").click();
  const stoppedSession = await sessionIdOf(a, "please wait");
  const [stopped] = await turnIds(a, stoppedSession);
  const line = a.page.locator("rtc-agent .turn-end");
  await until("the stopped line with Retry", async () => (await line.isVisible()) && (await retryOf(a, stopped!).isVisible()));
  await retryOf(a, stopped!).click();
  const again = await until("the retry call of the stopped turn", () => a.calls("v1.turn.retry").find((c) => c.data.turn_id === stopped));
  eq(again.data.session_id, stoppedSession, "the stopped turn's session");
  eq(again.data.client_id, `retry:${stopped}`, "another turn, another key");
  await until("a new turn of the stopped session", async () => (await turnIds(a, stoppedSession)).length === 2);
  await until("the stopped line gone", async () => !(await line.isVisible()));
  // The retry continues after the step that had finished: the model goes on from the cancelled question.
  includes(await a.waitForAnswer("After the question:"), "cancelled");
  eq(a.noErrors(), [], "no page errors");
});

test("15 /compact: the command is not a message; the summary is a collapsed card (v1.session.compact)", async () => {
  const go = await GoServer.start({ script });
  const a = await AgentPage.open(await newProfile(), host.url(go, { user: "compact-user" }));
  await a.send("first message");
  await a.waitForAnswer("Reply to: first message");
  await a.send("second message");
  await a.waitForAnswer("Reply to: second message");
  const id = await sessionIdOf(a, "first message");

  await composer(a).fill("/compact keep the message numbers");
  await composer(a).press("Enter");
  const sent = await until("the compact call", () => a.calls("v1.session.compact")[0]);
  eq(sent.data, { session_id: id, instruction: "keep the message numbers" }, "the session and the instruction");
  eq(a.calls("v1.message.send").length, 2, "no message was sent for the command");

  const card = a.page.locator("rtc-agent details.msg.summary");
  await until("the summary card", async () => (await card.count()) === 1 && (await card.getAttribute("data-status")) === "complete", 20_000);
  eq(await card.evaluate((e) => (e as HTMLDetailsElement).open), false, "collapsed");
  includes(await card.locator("summary").innerText(), "Earlier conversation summarised");
  await until("the composer cleared", async () => (await composer(a).inputValue()) === "");
  await card.locator("summary").click();
  ok((await card.locator(".md").innerText()).length > 0, "the summary text on expand");
  eq(await userTexts(a), ["first message", "second message"], "the summarised messages stay visible");
  await a.send("after the summary");
  await a.waitForAnswer("Reply to: after the summary");
  eq(a.noErrors(), [], "no page errors");
});
