// Test 5: two tabs of one profile: exactly one executes (Web Locks); every RTC
// runs once, whichever tab sent the message; both tabs show the conversation;
// when the executing tab closes, the other one takes over.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "tabs",
  turns: [
    turn("(?i)count", [
      { text: "One.", tool_calls: [call("countTool", { n: 1 })] },
      { text: "Two and a file.", tool_calls: [call("countTool", { n: 2 }), call("write", { path: "/t/x.txt", content: "x" })] },
      { text: "Three.", tool_calls: [call("countTool", { n: 3 })] },
      { chunks: ["Counted: ", "{{last_result}}"] },
    ]),
    turn("(?i)once more", [{ text: "Four.", tool_calls: [call("countTool", { n: 4 })] }, { chunks: ["Again: ", "{{last_result}}"] }]),
  ],
};

type Run = { tool: string; n?: number; tab: string };

async function runs(p: AgentPage): Promise<Run[]> {
  return p.page.evaluate(() => JSON.parse(localStorage.getItem("runs") ?? "[]") as Run[]);
}

async function run(locks: "on" | "off"): Promise<void> {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const params = { user: `tabs-${locks}`, ...(locks === "off" ? { locks: "off" } : {}) };
  const a = await AgentPage.open(ctx, host.url(go, params));
  const b = await AgentPage.open(ctx, host.url(go, params));
  const [leader, other] = await until("one executing tab", async () => {
    const [sa, sb] = [await a.snapshot(), await b.snapshot()];
    if (sa.executor === sb.executor) return null;
    return sa.executor ? [a, b] : [b, a];
  });
  await other.setMode("bypass");
  await other.send("Please count");
  includes(await other.waitForAnswer("Counted:"), "counted 3");
  await leader.openSession("Please count");
  includes(await leader.waitForAnswer("Counted:"), "counted 3", "the executing tab shows the conversation too");
  const leaderTab = await leader.page.evaluate(() => (window as unknown as { __tab: string }).__tab);
  const list = await runs(leader);
  eq(list.map((r) => r.n), [1, 2, 3], "each call ran once, in order");
  ok(list.every((r) => r.tab === leaderTab), `all in the executing tab: ${JSON.stringify(list)}`);
  eq(await leader.vfsFile("/t/x.txt"), "x", "the built-in tool ran too");

  // The executing tab goes away: the other one takes over.
  await leader.page.close({ runBeforeUnload: true }); // as a person closing the tab: pagehide runs
  await until("the remaining tab to execute", async () => (await other.snapshot()).executor, 15_000);
  await other.send("Once more");
  includes(await other.waitForAnswer("Again:"), "counted 4");
  const after = await runs(other);
  eq(after.map((r) => r.n), [1, 2, 3, 4], "still once each");
  eq(after[3]!.tab, await other.page.evaluate(() => (window as unknown as { __tab: string }).__tab), "run by the new executor");
  eq([...a.noErrors(), ...b.noErrors()], [], "no page errors");
}

test("5a two tabs (Web Locks): each RTC executed by exactly one tab", () => run("on"));
test("5b two tabs without Web Locks (IndexedDB lease): each RTC executed by exactly one tab", () => run("off"));
