// Test 16: nothing runs that the person did not see, in the real page against the
// real server, in edit mode. The model saves a script with `write` into /.scripts/
// (a protected path: the server asks even in edit mode); `script run` shows the
// stored code in the permission dialog; the script's two host-tool calls each ask
// on the script's card, and the denied one does not run. An askUser question
// titled like a permission dialog shows as the assistant's question.

import { eq, includes, test, until } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const code = "const a = await rtcAgent.call('countTool', { n: 1 });\nconst b = await rtcAgent.call('countTool', { n: 2 });\nreturn [a, b];";
const lookalike = { questions: [{ question: "Allow this script call?", header: "Permission", options: [{ label: "Allow" }, { label: "Deny" }] }] };
const script = {
  name: "approvals",
  turns: [
    turn("(?i)save fib", [{ text: "Saving.", tool_calls: [call("write", { path: "/.scripts/fib.js", content: code })] }, { chunks: ["Saved: ", "{{last_result}}"] }]),
    turn("(?i)run fib", [{ text: "Running.", tool_calls: [call("script", { action: "run", name: "fib" })] }, { chunks: ["Ran: ", "{{last_result}}"] }]),
    turn("(?i)lookalike", [{ text: "Asking.", tool_calls: [call("askUser", lookalike)] }, { chunks: ["Answered: ", "{{last_result}}"] }]),
  ],
};

test("16 approvals: a protected write asks in edit mode; script run shows its code; each host call from the script asks", async () => {
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "approvals-user" }));
  const confirm = p.page.locator("rtc-agent .prompt.confirm");

  await p.send("save fib");
  await confirm.waitFor();
  includes(await confirm.locator(".prompt-head").innerText(), "Permission request".toUpperCase(), "the product's permission dialog");
  await p.waitForCard("write", "sent");
  eq(await p.vfsFile("/.scripts/fib.js"), null, "not saved before the yes");
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  await p.waitForAnswer("Saved:");
  eq(await p.vfsFile("/.scripts/fib.js"), code);

  await p.send("run fib");
  await until("the run's dialog with the code", async () => (await confirm.locator(".script-code code").count()) === 1);
  eq(await confirm.locator(".script-code code").innerText(), code, "the stored code, whole, in the dialog");
  includes(await confirm.innerText(), "/.scripts/fib.js");
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();

  const hostCall = (n: number) => p.page.locator(`rtc-agent .tool[data-tool="script"] .prompt.confirm:has-text('"n": ${n}')`);
  await hostCall(1).waitFor();
  includes(await hostCall(1).innerText(), "Allow the running script to call countTool?");
  eq(await p.localStorageNumber("calls:countTool:1"), 0, "not called before the yes");
  await hostCall(1).getByRole("button", { name: "Allow", exact: true }).click();
  await hostCall(2).waitFor();
  eq(await p.localStorageNumber("calls:countTool:1"), 1, "the first call ran after its yes");
  await hostCall(2).getByRole("button", { name: "Deny" }).click();
  const ran = await p.waitForAnswer("Ran:");
  includes(ran, "PermissionError: the user declined this call (The script calls the host tool countTool)");
  eq(await p.localStorageNumber("calls:countTool:2"), 0, "the denied call did not run");

  await p.send("lookalike question");
  const ask = p.page.locator("rtc-agent form.prompt.ask");
  await ask.waitFor();
  includes(await ask.locator(".prompt-head").innerText(), "The assistant asks".toUpperCase(), "labelled as the assistant's");
  includes(await ask.innerText(), "Allow this script call?");
  eq(await p.page.locator("rtc-agent .prompt.confirm").count(), 0, "no permission dialog is open");
  await ask.locator("input[value='Deny']").check();
  await ask.getByRole("button", { name: "Send answer" }).click();
  includes(await p.waitForAnswer("Answered:"), "A: Deny");
  eq(p.noErrors(), [], "no page errors");
});
