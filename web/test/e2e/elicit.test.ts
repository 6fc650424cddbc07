// Test: an MCP server's question during a call (an elicitation) shows in the real
// page as an askUser form under the call's card; the person's free-text answer
// goes back to the MCP server, whose tool result the model reads.

import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, includes, test } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer, bin } from "./servers.js";

const script = {
  name: "elicit",
  turns: [turn("(?i)ask", [{ text: "Asking the server.", tool_calls: [call("test__ask", { question: "Which colour?" })] }, { chunks: ["After: ", "{{last_result}}"] }])],
};

test("elicitation: an MCP server's question is answered in the page's askUser form", async () => {
  const config = join(tmpdir(), `rtc-e2e-mcp-${process.pid}.json`);
  await writeFile(config, JSON.stringify({ servers: { test: { command: bin.mcpserver } } }));
  const go = await GoServer.start({ script, args: ["-mcp-config", config] });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "elicit-user" }));
  await p.send("ask me");
  const confirm = p.page.locator("rtc-agent .prompt.confirm");
  await confirm.waitFor({ timeout: 30_000 });
  await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  const form = p.page.locator("rtc-agent form.prompt.ask");
  await form.waitFor({ timeout: 30_000 });
  includes(await form.innerText(), "Which colour?", "the server's message is the question");
  eq(await form.locator("input[type=radio], input[type=checkbox]").count(), 0, "a free-text question has no choices");
  await form.getByRole("textbox", { name: "Answer to: Which colour?" }).fill("deep blue");
  await form.getByRole("button", { name: "Send answer" }).click();
  const answer = await p.waitForAnswer("After:", 30_000);
  includes(answer, 'accept {"answer":"deep blue"}');
  eq(await form.count(), 0, "the form is gone");
  eq(p.noErrors(), [], "no page errors");
});
