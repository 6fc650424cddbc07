// Typed tools and approvals in the real page against the real server: a host
// tool's wrong argument reaches the model as an error naming the field, without a
// question and without running; "Allow for this chat" is shown above the
// messages, skips the next confirmation and is revoked with its ✕; a protected
// path still asks (without the offer); a denial's reason reaches the model.

import { eq, includes, ok, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const write = (n: string) => turn(`(?i)^note ${n}`, [{ text: `Writing ${n}.`, tool_calls: [call("write", { path: `/notes/${n}.md`, content: n })] }, { chunks: [`Wrote ${n}: `, "{{last_result}}"] }]);
const script = {
  name: "typed",
  turns: [
    turn("(?i)^bad count", [{ text: "Counting.", tool_calls: [call("countTool", { n: "seven" })] }, { chunks: ["Counted: ", "{{last_result}}"] }]),
    write("one"),
    write("two"),
    write("three"),
    turn("(?i)^instructions", [{ text: "Changing them.", tool_calls: [call("write", { path: "/AGENT.md", content: "be terse" })] }, { chunks: ["Instructions: ", "{{last_result}}"] }]),
  ],
};

test("typed: a host tool's wrong argument reaches the model naming the field; nothing asked, nothing run", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "typed-user" }));
  await p.send("bad count");
  const answer = await p.waitForAnswer("Counted:");
  includes(answer, "[Tool Error] Invalid arguments for countTool");
  includes(answer, '"n"');
  includes(answer, "number");
  eq(await p.page.locator("rtc-agent .prompt.confirm").count(), 0, "no question about a wrong call");
  eq(await p.localStorageNumber("calls:countTool:seven"), 0, "not run");
  eq(p.noErrors(), [], "no page errors");
});

test("approvals: allow for this chat skips the next question until revoked; a protected path asks; a denial's reason reaches the model", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), `${go.url}/`);
  await p.setMode("manual");
  const confirm = p.page.locator("rtc-agent .prompt.confirm");
  const bar = p.page.locator("rtc-agent .approvals");

  await p.send("note one");
  await confirm.waitFor();
  await confirm.getByRole("button", { name: "Allow for this chat" }).click();
  await p.waitForAnswer("Wrote one:");
  await bar.waitFor();
  includes(await bar.innerText(), "Allowed in this chat:");
  eq(await bar.locator(".approval").getAttribute("data-tool"), "write");

  await p.send("note two");
  const two = await p.waitForAnswer("Wrote two:");
  includes(two, "bytes to /notes/two.md");
  eq(await p.vfsFile("/notes/two.md"), "two", "written without a question");
  const second = await p.page.evaluate(() => {
    type R = { arguments: { path?: string }; needs_confirmation: boolean; decision?: { scope: string; standing?: boolean } };
    const rtcs = (document.querySelector("rtc-agent") as unknown as { agent: { store: { rtcs: Map<string, R> } } }).agent.store.rtcs;
    return [...rtcs.values()].find((r) => r.arguments.path === "/notes/two.md")!;
  });
  eq(second.needs_confirmation, false, "the server did not ask for it");
  eq(second.decision?.standing, true, "recorded as allowed by the chat's approval");

  await p.send("instructions");
  await confirm.waitFor();
  eq(await confirm.getByRole("button", { name: "Allow for this chat" }).count(), 0, "no allow-for-chat on a protected path");
  includes(await confirm.innerText(), "changing it asks every time");
  await confirm.getByRole("textbox", { name: "Reason for denying" }).fill("keep the instructions as they are");
  await confirm.getByRole("button", { name: "Deny", exact: true }).click();
  const denied = await p.waitForAnswer("Instructions:");
  includes(denied, "[Tool Rejected]");
  includes(denied, "keep the instructions as they are");
  eq(await p.vfsFile("/AGENT.md"), null, "not written");

  await bar.getByRole("button", { name: "Revoke write" }).click();
  await until("the approval to go", async () => (await bar.isHidden()) && (await bar.locator(".approval").count()) === 0);
  await p.send("note three");
  await confirm.waitFor();
  eq(await p.vfsFile("/notes/three.md"), null, "asks again after the revoke");
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  await p.waitForAnswer("Wrote three:");
  ok(await bar.isHidden(), "a plain Allow adds nothing to the chat's approvals");
  eq(p.noErrors(), [], "no page errors");
});
