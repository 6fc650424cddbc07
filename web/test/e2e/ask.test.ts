// Test 2: the demo model's askUser call shows a form; the answer given through it
// reaches the model, whose final answer quotes it via {{last_result}}.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { eq, includes, test } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, newProfile } from "./pages.js";
import { GoServer } from "./servers.js";

test("2 askUser: the answer from the form reaches the model", async () => {
  // The demo script itself, as `make run` uses it.
  const script = JSON.parse(await readFile(join(paths.repo, "internal/llm/scripted/demo.json"), "utf8")) as object;
  const go = await GoServer.start({ script });
  const p = await AgentPage.open(await newProfile(), `${go.url}/`);
  await p.page.locator("rtc-agent").evaluate((el) => (el as unknown as { prefill(t: string, o: object): void }).prefill("Ask me a question", { send: true }));
  const form = p.page.locator("rtc-agent form.prompt.ask");
  await form.waitFor();
  await p.waitForCard("askUser", "sent");
  await form.locator("input[value='Dark']").check();
  await form.getByRole("button", { name: "Send answer" }).click();
  const answer = await p.waitForAnswer("Your answer reached the server");
  includes(answer, "Q: Which colour theme should the welcome note recommend?");
  includes(answer, "A: Dark\n");
  await p.waitForCard("askUser", "completed");
  eq(await form.count(), 0, "the form is gone");
  eq(p.noErrors(), [], "no page errors");
});
