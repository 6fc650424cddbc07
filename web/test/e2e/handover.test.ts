// Two tabs of one profile (same user and device). (a) The banner "… is waiting
// for your answer" in one tab goes away once the question is answered in the
// other. (b) A tab that cannot connect does not keep the executor role: the tab
// that can runs the tools, and each runs once.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer, freePort } from "./servers.js";

const script = {
  name: "handover",
  turns: [
    turn("(?i)careful", [{ text: "A file.", tool_calls: [call("write", { path: "/h/one.txt", content: "one" })] }, { chunks: ["Written: ", "{{last_result}}"] }]),
    turn("(?i)count", [{ text: "One.", tool_calls: [call("countTool", { n: 1 })] }, { chunks: ["Counted: ", "{{last_result}}"] }]),
  ],
};

test("tabs prompt banner: answered in one tab, it disappears from the other", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  const a = await AgentPage.open(ctx, host.url(go, { user: "banner-user" }));
  const b = await AgentPage.open(ctx, host.url(go, { user: "banner-user" }));
  await a.setMode("manual");
  await a.send("Be careful");
  const confirm = a.page.locator("rtc-agent .prompt.confirm");
  await confirm.waitFor();
  // Tab b shows no conversation (a new chat): it points to the waiting one.
  await until("the banner in the other tab", async () => (await b.banner()).includes("is waiting for your answer"));
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  includes(await a.waitForAnswer("Written:"), "Written");
  await until("the banner to go from the other tab", async () => (await b.banner()) === "");
  eq([...a.noErrors(), ...b.noErrors()], [], "no page errors");
});

test("tabs a tab that cannot connect does not keep the executor role from one that can", async () => {
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  // The first tab points to a port nobody listens on: it never connects.
  const dead = await freePort();
  const stuck = new AgentPage(await ctx.newPage());
  await stuck.page.goto(host.url(go, { user: "handover-user" }).replace(`go=${go.port}`, `go=${dead}`));
  await until("the stuck tab's agent", () => stuck.page.evaluate(() => !!(document.querySelector("rtc-agent") as unknown as { agent?: object }).agent));
  const good = await AgentPage.open(ctx, host.url(go, { user: "handover-user" }));
  await until("the connected tab to execute", async () => (await good.snapshot()).executor, 15_000);
  eq(await stuck.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { isExecutor: boolean } }).agent.isExecutor), false, "the stuck tab does not execute");
  await good.setMode("bypass");
  await good.send("Please count");
  includes(await good.waitForAnswer("Counted:"), "counted 1");
  const runs = await good.page.evaluate(() => JSON.parse(localStorage.getItem("runs") ?? "[]") as { n: number; tab: string }[]);
  const tab = await good.page.evaluate(() => (window as unknown as { __tab: string }).__tab);
  eq(runs.map((r) => r.n), [1], "ran once");
  ok(runs.every((r) => r.tab === tab), `in the connected tab: ${JSON.stringify(runs)}`);
  eq(good.noErrors(), [], "no page errors");
});
