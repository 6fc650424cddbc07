// Test 9: the rest of the chat UI against a real server: sessions (new, switch,
// rename, delete), the work-mode selector, the stop button, the file editor,
// and re-login when the host can no longer give a token.

import { eq, includes, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const ask = { questions: [{ question: "Wait for me?", options: [{ label: "Yes" }, { label: "No" }] }] };
const script = {
  name: "ui",
  turns: [turn("(?i)please wait", [{ text: "Asking.", tool_calls: [call("askUser", ask)] }, { text: "Never reached." }]), turn("(?i).", [{ chunks: ["Reply to: ", "{{user}}"] }])],
};

test("9 UI: sessions (new, switch, rename, delete), work mode, stop, file editor", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "ui-user" }));
  const list = p.page.locator("rtc-agent aside.sessions li[data-id]");
  await p.send("first chat");
  await p.waitForAnswer("Reply to: first chat");
  await p.page.locator("rtc-agent button.new").click();
  await p.send("second chat");
  await p.waitForAnswer("Reply to: second chat");
  await until("two sessions listed", async () => (await list.count()) === 2);

  await list.filter({ hasText: "second chat" }).locator("button.rename").click(); // the active session shows its buttons
  const title = p.page.locator("rtc-agent aside.sessions input[aria-label='Session title']");
  await title.fill("Renamed chat");
  await title.press("Enter");
  await until("the rename on the server", async () => (await p.snapshot()).sessions.some((s) => s.title === "Renamed chat"));
  await until("listed under the new name", async () => (await list.filter({ hasText: "Renamed chat" }).count()) === 1);

  await p.openSession("first chat");
  await p.waitForAnswer("Reply to: first chat");
  eq((await p.assistantTexts()).some((t) => t.includes("second chat")), false, "switched conversations");
  await p.setMode("plan");
  await until("the work mode on the server", async () => (await p.snapshot()).sessions.find((s) => s.title === "first chat")?.work_mode === "plan");

  const item = list.filter({ hasText: "Renamed chat" });
  const del = item.locator("button.delete");
  await item.hover(); // the item's buttons show on hover
  await del.click();
  await del.click(); // the second click confirms
  await until("the deleted session to go", async () => (await p.snapshot()).sessions.length === 1 && (await list.count()) === 1);

  await p.send("please wait");
  await p.page.locator("rtc-agent form.prompt.ask").waitFor();
  const stop = p.page.locator("rtc-agent button.stop");
  await stop.click();
  await p.waitForCard("askUser", "failed");
  await until("the form and the stop button to go", async () => (await p.page.locator("rtc-agent form.prompt.ask").count()) === 0 && !(await stop.isVisible()));
  await p.send("after the stop");
  await p.waitForAnswer("Reply to: after the stop");

  await p.explorerPaths();
  await p.page.locator("rtc-agent aside.files button.new-file").click();
  const path = p.page.locator("rtc-agent aside.files input[aria-label='New file path']");
  await path.fill("/notes/by-hand.md");
  await path.press("Enter");
  const editor = p.page.locator("rtc-agent aside.files textarea");
  await editor.fill("typed by hand");
  await p.page.locator("rtc-agent aside.files button.save").click();
  await until("the saved file", async () => (await p.vfsFile("/notes/by-hand.md")) === "typed by hand");
  await until("the file in the explorer", async () => (await p.explorerPaths()).includes("/notes/by-hand.md"));
  eq(p.noErrors(), [], "no page errors");
});

test("10 re-login: when the host has no token any more, the agent stops and says so", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "relogin-user", refuseAfter: "1" }));
  await go.restartWithNewSecret(); // the old token is refused, and the host has no new one
  const reason = await until("the relogin event", () => p.page.evaluate(() => (window as unknown as { __relogin?: string }).__relogin));
  includes(reason, "invalid token");
  includes(await p.page.locator("rtc-agent .banner").innerText(), "Log in again");
  await until("the disconnected state", async () => (await p.page.locator("rtc-agent .conn").getAttribute("data-state")) === "disconnected");
});

test("sessions: two chats of the same title are told apart by when each started", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "twins-user" }));
  const list = p.page.locator("rtc-agent aside.sessions li[data-id]");
  await p.send("hello");
  await p.waitForAnswer("Reply to: hello");
  await until("one chat, no start time shown", async () => (await list.count()) === 1 && !(await list.first().innerText()).includes("started"));
  await new Promise((r) => setTimeout(r, 1100)); // a second apart: start times are shown to the second
  await p.page.locator("rtc-agent button.new").click();
  await p.send("hello");
  await until("two chats named hello", async () => (await list.filter({ hasText: "hello" }).count()) === 2);
  const metas = await until("both show when they started", async () => {
    const texts = await list.allInnerTexts();
    return texts.every((t) => /started \d/.test(t)) ? texts : null;
  });
  eq(new Set(metas).size, 2, `the two items read differently: ${JSON.stringify(metas)}`);
});
