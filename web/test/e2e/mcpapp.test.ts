// Test: an MCP tool's view (an MCP App) in its call's card, on a host page of
// another origin under the README's strict CSP. The test MCP server's "panel"
// declares a ui:// view written against the MCP Apps messages by hand; the
// view shows what it is sent and what it was refused. A call the person
// denies shows no view; one that runs does. The view calls its server's
// panel_refresh through the person: asked in the card in edit mode, its
// result shown in the view, and run as a turn of its own once the view's
// turn has ended. Its
// context for the model goes with the person's next message, once, it
// reads its server's resources, it may float in a corner of the chat
// (picture-in-picture), and it may cover the chat (fullscreen) until
// the person goes back.

import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, cspViolations, newProfile, turn } from "./pages.js";
import { GoServer, bin } from "./servers.js";

const script = {
  name: "mcpapp",
  turns: [
    turn('(?s)what do you see.*<tool_view_context tool="test__panel">.*The panel shows 3 figures\n\\{"figures":3\\}\n</tool_view_context>$', [{ chunks: ["Saw the panel's figures."] }]),
    turn("(?i)what do you see", [{ chunks: ["No view context."] }]),
    turn("(?i)panel", [{ text: "Showing it.", tool_calls: [call("test__panel", { title: "Sales" })] }, { chunks: ["Shown: ", "{{last_result}}"] }]),
    turn("(?i)tell me more", [{ chunks: ["More about the figures."] }]),
    turn("(?i)refresh the figures", [
      { text: "Showing them.", tool_calls: [call("test__panel", { title: "Live" })] },
      { tool_calls: [call("askUser", { questions: [{ question: "Are the figures right?", options: [{ label: "yes" }, { label: "no" }] }] })] },
      { chunks: ["Answered: ", "{{last_result}}"] },
    ]),
  ],
};

test("mcp app: a tool's view runs in its card, sandboxed, told the call and its result, its links, messages and tool calls going only through the person", async () => {
  const config = join(tmpdir(), `rtc-e2e-mcpapp-${process.pid}.json`);
  await writeFile(config, JSON.stringify({ servers: { test: { command: bin.mcpserver } } }));
  const go = await GoServer.start({ script, args: ["-mcp-config", config] });
  const ctx = await newProfile();
  const violations = await cspViolations(ctx);
  const p = new AgentPage(await ctx.newPage());
  await p.page.goto(host.url(go, { user: "mcpapp-user" }).replace("/host.html", "/csp.html"));
  await p.connected();

  // Asked about first: the view is not shown while the person decides, nor
  // for a call they deny (it would learn the arguments its server never gets).
  await p.send("show the sales panel");
  const asked = p.page.locator('rtc-agent .tool[data-tool="test__panel"]').first();
  const confirm = asked.locator(".prompt.confirm");
  await confirm.waitFor({ timeout: 30_000 });
  eq(await asked.locator("iframe.app").count(), 0, "no view while the person decides");
  await confirm.getByRole("button", { name: "Deny" }).click();
  await p.waitForAnswer("Shown:", 30_000);
  eq(await asked.locator("iframe.app").count(), 0, "no view for a denied call");

  await p.setMode("bypass");
  await p.send("show the sales panel again");
  includes(await p.waitForAnswer("panel shown: Sales", 30_000), "panel shown: Sales", "the call ran on the MCP server");
  const card = p.page.locator('rtc-agent .tool[data-tool="test__panel"]').last();
  const frameEl = card.locator("iframe.app");
  await frameEl.waitFor({ timeout: 15_000 });
  eq(await frameEl.getAttribute("sandbox"), "allow-scripts", "the frame may run scripts and nothing else");
  const view = card.frameLocator("iframe.app");
  await until("the view gets the result", async () => (await view.locator("#result").textContent()) === "result: panel shown: Sales", 15_000);
  eq(await view.locator("#structured").textContent(), `{"figures":3,"title":"Sales"}`, "the view gets the tool's structured content apart from its text");
  eq(await view.locator("#title").textContent(), "Panel in RTC Agent (tools)", "the view started with ui/initialize; the host offers its server's tools");
  eq(await view.locator("#input").textContent(), 'input: {"title":"Sales"}', "the view gets the arguments");
  await until("the view tried the network", async () => (await view.locator("#net").textContent()) !== "-", 10_000);
  eq(await view.locator("#net").textContent(), "net: blocked", "the view reaches no network its CSP does not name");
  // The view's turn has ended (the model answered): its call runs as a turn
  // of its own (bypass: unasked), and the model takes no step for it.
  const answers = await p.page.locator("rtc-agent .msg.assistant").count();
  await view.locator("#refresh").click();
  await until("the call after the turn runs", async () => (await view.locator("#refresh-answer").textContent()) === "call: refreshed", 30_000);
  eq(await p.page.locator("rtc-agent .msg.assistant").count(), answers, "no answer of the model for the view's call");

  const frame = p.page.frames().filter((f) => f.url().includes("/mcp-apps/test__panel")).at(-1);
  ok(frame, "the view is loaded from the server's /mcp-apps/");
  eq(await frame!.evaluate(() => self.origin), "null", "the view's origin is opaque");
  await frame!.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
  await until("the frame takes the view's height", async () => (await frameEl.evaluate((f) => (f as HTMLIFrameElement).style.height)) !== "", 10_000);

  // Fullscreen: over the whole chat and no further (never over the host
  // page), with a bar naming it and the way back; the view is told when the
  // person goes back, and is not loaded again.
  await view.locator("#fullscreen").click();
  const cover = card.locator(".app-fullscreen");
  await cover.waitFor({ timeout: 10_000 });
  eq(await card.locator(".app-view.fullscreen").count(), 0, "not before the person agrees");
  await cover.getByRole("button", { name: "Cover the chat" }).click();
  await until("the view is shown fullscreen", async () => (await view.locator("#mode").textContent()) === "mode: fullscreen", 10_000);
  const chatBox = await p.page.locator("rtc-agent").boundingBox();
  const viewBox = await card.locator(".app-view").boundingBox();
  ok(chatBox && viewBox, "both boxes are shown");
  ok(Math.abs(viewBox!.x - chatBox!.x) <= 2 && Math.abs(viewBox!.y - chatBox!.y) <= 2 && Math.abs(viewBox!.width - chatBox!.width) <= 4 && Math.abs(viewBox!.height - chatBox!.height) <= 4,
    `the view covers the chat's box exactly: ${JSON.stringify(viewBox)} in ${JSON.stringify(chatBox)}`);
  includes((await card.locator(".app-bar").textContent()) ?? "", "The view of test__panel", "the bar names the view");
  await card.locator(".app-bar").getByRole("button", { name: "Back to the chat" }).click();
  await until("the view is told it is inline again", async () => (await view.locator("#mode").textContent()) === "mode: inline", 10_000);
  eq(await card.locator(".app-view.fullscreen").count(), 0, "back in its card");
  // Asked again: only the person's yes covers the chat again; Escape on the bar goes back too.
  await view.locator("#fullscreen").click();
  await cover.getByRole("button", { name: "Not now" }).click();
  await until("the view hears it stays inline", async () => (await view.locator("#mode").textContent()) === "mode: inline", 10_000);
  eq(await card.locator(".app-view.fullscreen").count(), 0, "declined: still in its card");
  await view.locator("#fullscreen").click();
  await cover.getByRole("button", { name: "Cover the chat" }).click();
  await until("fullscreen again", async () => (await card.locator(".app-view.fullscreen").count()) === 1, 10_000);
  await p.page.keyboard.press("Escape");
  await until("Escape went back", async () => (await view.locator("#mode").textContent()) === "mode: inline", 10_000);
  // Picture-in-picture: asked the same way, then in a corner of the chat's
  // messages, in sight while they scroll, until the person puts it back.
  await view.locator("#pip").click();
  const float = card.locator(".app-pip");
  await float.waitFor({ timeout: 10_000 });
  await float.getByRole("button", { name: "Float it" }).click();
  await until("the view floats", async () => (await view.locator("#mode").textContent()) === "mode: pip", 10_000);
  const messagesBox = await p.page.locator("rtc-agent .messages").boundingBox();
  const floatBox = await card.locator(".app-view.pip").boundingBox();
  ok(messagesBox && floatBox, "both boxes are shown");
  ok(floatBox!.width <= 362 && floatBox!.x + floatBox!.width <= messagesBox!.x + messagesBox!.width + 1 && floatBox!.y >= messagesBox!.y - 1 && floatBox!.y <= messagesBox!.y + 16,
    `the view floats in the top corner of the messages: ${JSON.stringify(floatBox)} in ${JSON.stringify(messagesBox)}`);
  await p.page.locator("rtc-agent .messages").evaluate((m) => (m.scrollTop = 0));
  eq((await card.locator(".app-view.pip").boundingBox())?.y, floatBox!.y, "it stays in sight while the messages scroll");
  await card.locator(".app-bar").getByRole("button", { name: "Back in its card" }).click();
  await until("the view is told it is inline again", async () => (await view.locator("#mode").textContent()) === "mode: inline", 10_000);
  eq(await card.locator(".app-view.pip").count(), 0, "back in its card");
  // A confirmation shown while the view covers the chat brings it back
  // inline (edit mode: the view's own call asks the person, beside the card).
  await p.setMode("edit");
  await view.locator("#fullscreen").click();
  await cover.getByRole("button", { name: "Cover the chat" }).click();
  await until("fullscreen before the confirmation", async () => (await card.locator(".app-view.fullscreen").count()) === 1, 10_000);
  await view.locator("#refresh").click();
  const refreshAsk = p.page.locator('rtc-agent .prompt.confirm[aria-label="Permission: test__panel_refresh"]');
  await refreshAsk.waitFor({ timeout: 15_000 });
  await until("the confirmation brought the view back inline", async () => (await view.locator("#mode").textContent()) === "mode: inline", 10_000);
  eq(await card.locator(".app-view.fullscreen").count(), 0, "the view no longer covers the confirmation");
  await refreshAsk.getByRole("button", { name: "Deny" }).click();
  await until("the view hears the refusal", async () => ((await view.locator("#refresh-answer").textContent()) ?? "") !== "calling", 15_000);
  await p.setMode("bypass");
  eq(await frame!.evaluate(() => (window as unknown as { marker?: number }).marker), 1, "the view was not loaded again");

  // A link: asked in the card, opened only on the person's click.
  await view.locator("#link").click();
  const ask = card.locator(".app-link");
  await ask.waitFor({ timeout: 10_000 });
  // Asked below the view, so the chat that keeps its end in sight shows it
  // (above a tall view it was out of sight, and a click on it missed).
  const logBox = await p.page.locator('rtc-agent [role="log"]').boundingBox();
  const askBox = await ask.boundingBox();
  ok(logBox && askBox && askBox.y >= logBox.y && askBox.y + askBox.height <= logBox.y + logBox.height,
    `the question is in sight: ${JSON.stringify(askBox)} in ${JSON.stringify(logBox)}`);
  eq(await ask.locator("strong").textContent(), "https://guide.example.test", "the link's origin is shown");
  await ctx.route("https://guide.example.test/**", (r) => r.fulfill({ contentType: "text/html", body: "<p>guide</p>" }));
  const popup = ctx.waitForEvent("page", { timeout: 10_000 });
  await ask.getByRole("button", { name: "Open" }).click();
  const opened = await popup;
  includes(opened.url(), "guide.example.test/panel", "the link opened in a new tab");
  eq(await opened.evaluate(() => window.opener), null, "without a handle on the page");
  await opened.close();
  await until("the view hears that the link opened", async () => (await view.locator("#link-answer").textContent()) === "link asked", 10_000);

  // What the page refuses without asking: a message past 8,000 characters, one with a picture.
  await view.locator("#ask-long").click();
  await until("the long message is refused", async () => (await view.locator("#long-answer").textContent()) === "message refused", 10_000);
  await view.locator("#ask-image").click();
  await until("the picture is refused", async () => (await view.locator("#image-answer").textContent()) === "message refused", 10_000);
  eq(await card.locator(".app-message").count(), 0, "neither was put to the person");

  // A message: shown whole in the card, sent only when the person says so;
  // a second one while the first waits is declined at once.
  await view.locator("#ask").click();
  let proposal = card.locator(".app-message");
  await proposal.waitFor({ timeout: 10_000 });
  await view.locator("#ask").click();
  await until("the second ask is declined", async () => (await view.locator("#msg-answer").textContent()) === "message refused", 10_000);
  eq(await proposal.count(), 1, "one ask at a time");
  eq(await proposal.locator(".app-text").textContent(), "Tell me more about these figures", "the message is shown whole");
  await view.locator("#msg-answer").evaluate((el) => (el.textContent = "-"));
  await proposal.getByRole("button", { name: "Not now" }).click();
  await until("the view hears the refusal", async () => (await view.locator("#msg-answer").textContent()) === "message refused", 10_000);
  await view.locator("#ask").click();
  proposal = card.locator(".app-message");
  await proposal.getByRole("button", { name: "Send" }).click();
  await p.waitForAnswer("More about the figures.", 30_000);
  await until("the view hears it was sent", async () => (await view.locator("#msg-answer").textContent()) === "message sent", 10_000);
  eq(await p.page.locator("rtc-agent .msg.user .text").last().textContent(), "Tell me more about these figures", "the message went as the person's");

  // The view reads a resource of its server through the server, no one asked.
  await view.locator("#read").click();
  await until("the view reads its figures", async () => (await view.locator("#read-answer").textContent()) === "resource: 12, 7, 30", 10_000);

  // The view's context for the model goes with the person's next message, once.
  await view.locator("#share").click();
  await until("the view's context is kept", async () => (await view.locator("#share-answer").textContent()) === "context kept", 10_000);
  await p.send("what do you see");
  await p.waitForAnswer("Saw the panel's figures.", 30_000);
  await p.send("what do you see now");
  await p.waitForAnswer("No view context.", 30_000);

  // The chat went on: the card was updated around the view, which was not loaded again.
  eq(await frame!.evaluate(() => (window as unknown as { marker?: number }).marker), 1, "the view was not loaded again");

  // A view's call of its own server's tool, while its turn waits on a
  // question: edit mode asks the person in the card, then the view gets the
  // result; a second call while one waits, and a tool its server lacks, are refused.
  await p.setMode("edit");
  await p.send("refresh the figures");
  const live = p.page.locator('rtc-agent .tool[data-tool="test__panel"]').last();
  await live.locator(".prompt.confirm").getByRole("button", { name: "Allow", exact: true }).click();
  const question = p.page.locator("rtc-agent form.prompt.ask");
  await question.waitFor({ timeout: 30_000 });
  const liveView = live.frameLocator("iframe.app");
  await until("the new view gets its result", async () => (await liveView.locator("#result").textContent()) === "result: panel shown: Live", 15_000);
  await liveView.locator("#call-unknown").click();
  await until("a tool the server lacks is refused", async () => ((await liveView.locator("#call").textContent()) ?? "").startsWith("call refused: "), 10_000);
  includes((await liveView.locator("#call").textContent()) ?? "", "no tool", "the view is told why");
  await liveView.locator("#refresh").click();
  const viewAsk = p.page.locator('rtc-agent .prompt.confirm[aria-label="Permission: test__panel_refresh"]');
  await viewAsk.waitFor({ timeout: 15_000 });
  includes((await viewAsk.textContent()) ?? "", "The tool's view asks to run test__panel_refresh", "the person sees that the view asks");
  eq(await liveView.locator("#refresh-answer").textContent(), "calling", "the call waits for the person");
  await liveView.locator("#refresh").click();
  await until("a second call while one waits is refused", async () => ((await liveView.locator("#refresh-answer").textContent()) ?? "").includes("one call at a time"), 10_000);
  await viewAsk.getByRole("button", { name: "Allow", exact: true }).click();
  await until("the view gets the call's result", async () => (await liveView.locator("#refresh-answer").textContent()) === "call: refreshed", 30_000);
  eq(await viewAsk.count(), 0, "the question is gone once answered");
  await question.locator("input[value='yes']").check();
  await question.getByRole("button", { name: "Send answer" }).click();
  includes(await p.waitForAnswer("Answered:", 30_000), "yes", "the turn went on with the person's answer");

  // The view's own blocked fetch is its CSP at work; nothing of the host page is blocked.
  eq(violations.filter((v) => !v.includes("net.example.test")), [], "no CSP violation on the host page");
  eq(p.noErrors().filter((e) => !e.includes("net.example.test")), [], "no page errors but the view's blocked fetch");
});
