// Test 3: manual work mode: the first write is confirmed, the second refused; the
// model sees "[Tool Rejected]" and the refused file is never written.

import { eq, includes, test, until } from "./harness.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const script = {
  name: "manual",
  turns: [
    turn("(?i)careful", [
      { text: "First file.", tool_calls: [call("write", { path: "/m/one.txt", content: "first" })] },
      { text: "Second file.", tool_calls: [call("write", { path: "/m/two.txt", content: "second" })] },
      { chunks: ["The second write gave: ", "{{last_result}}"] },
    ]),
  ],
};

test("3 manual mode: one confirmation accepted, one refused", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), `${go.url}/`);
  await p.setMode("manual");
  await p.send("Be careful with my files");
  const confirm = p.page.locator("rtc-agent .prompt.confirm");
  await confirm.waitFor();
  await p.waitForCard("write", "sent");
  eq(await p.vfsFile("/m/one.txt"), null, "nothing written before the approval");
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  await until("the second confirmation", async () => (await p.toolCards()).length === 2 && (await confirm.count()) === 1);
  await confirm.getByRole("button", { name: "Deny" }).click();
  const answer = await p.waitForAnswer("The second write gave:");
  includes(answer, "[Tool Rejected]");
  includes(answer, "the user declined this write call");
  eq((await p.toolCards()).map((c) => c.status), ["completed", "rejected"], "card states");
  eq(await p.vfsFile("/m/one.txt"), "first", "the approved write happened");
  eq(await p.vfsFile("/m/two.txt"), null, "the refused write did not");
  const mode = await p.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent: { sessions(): { work_mode: string }[] } }).agent.sessions()[0]?.work_mode);
  eq(mode, "manual", "the session was created in manual mode");
  eq(p.noErrors(), [], "no page errors");
});
