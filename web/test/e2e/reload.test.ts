// Test 4: a reload while a tool runs never runs it twice. A host tool still
// running at the reload is reported as interrupted; a tool that finished but
// whose result was not acknowledged (the server died) is delivered from the
// outbox after the reload, once.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "reload",
  turns: [
    turn("(?i)slow", [{ text: "Running the slow tool.", tool_calls: [call("slowTool", {})] }, { chunks: ["Slow tool said: ", "{{last_result}}"] }]),
    turn("(?i)kill", [{ text: "Running the kill tool.", tool_calls: [call("killTool", {})] }, { chunks: ["Kill tool said: ", "{{last_result}}"] }]),
  ],
};

test("4a reload while a host tool runs: reported as interrupted, not run again", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "reload-a" }));
  await p.setMode("bypass");
  await p.send("Run the slow tool");
  await p.waitForCard("slowTool", "executing");
  // The card shows the call executing once the executor reported it, a
  // moment before the handler runs.
  await until("the tool to start", async () => (await p.localStorageNumber("calls:slowTool")) >= 1);
  eq(await p.localStorageNumber("calls:slowTool"), 1, "started once");
  await p.reload();
  const answer = await p.waitForAnswer("Slow tool said:");
  includes(answer, "[Tool Error] interrupted: the page was reloaded while the tool ran");
  await p.waitForCard("slowTool", "failed");
  eq(await p.localStorageNumber("calls:slowTool"), 1, "not run again after the reload");
  eq(p.noErrors(), [], "no page errors");
});

test("4b reload with an undelivered result: submitted from the outbox, once", async () => {
  const go = await GoServer.start({ script });
  host.hooks.set("kill", () => go.kill());
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "reload-b" }));
  await p.setMode("bypass");
  await p.send("Run the kill tool");
  // The tool killed the server, then finished: its result waits in the outbox.
  const box = await until("the result in the outbox", async () => {
    const o = await p.outbox();
    return o.length === 1 ? o : null;
  });
  ok(box[0]!.client_id, "the outbox entry has its client id");
  await p.page.reload(); // the host page loads; the server is still down
  await until("the page to be offline", async () => (await p.page.locator("rtc-agent .conn").getAttribute("data-state")) !== "connected");
  await go.start();
  const answer = await p.waitForAnswer("Kill tool said:");
  includes(answer, "finished after the server died (run 1)");
  await p.waitForCard("killTool", "completed");
  eq(await p.localStorageNumber("calls:killTool"), 1, "the tool ran once");
  eq((await p.outbox()).length, 0, "the outbox is empty once acknowledged");
});
