// Test 17: the demo's formatting answer (links in every form, a table, code in
// three languages) renders as safe links, a table and highlighted code blocks
// whose highlighting chunks the Go server serves; the copy buttons copy.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { eq, ok, test, until } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, newProfile } from "./pages.js";
import { GoServer } from "./servers.js";

test("17 rendering: the demo's links, table and highlighted code; copy buttons", async () => {
  const script = JSON.parse(await readFile(join(paths.repo, "internal/llm/scripted/demo.json"), "utf8")) as object;
  const go = await GoServer.start({ script });
  const ctx = await newProfile();
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: go.url });
  const p = await AgentPage.open(ctx, `${go.url}/`);
  await p.send("Show me some formatting");
  await p.waitForAnswer("three ways");
  const msg = p.page.locator("rtc-agent .msg.assistant").last();
  await until("the answer to be complete", async () => (await msg.getAttribute("data-status")) === "complete");
  const links = await msg.locator(".md a").evaluateAll((as) => as.map((a) => ({ href: a.getAttribute("href"), rel: a.getAttribute("rel"), target: a.getAttribute("target") })));
  const hrefs = links.map((l) => l.href);
  for (const want of ["https://example.com", "https://www.rfc-editor.org/rfc/rfc3986", "https://commonmark.org/help/", "https://en.wikipedia.org/wiki/Markdown_(disambiguation)", "mailto:support@example.com"]) {
    ok(hrefs.includes(want), `a link to ${want} in ${JSON.stringify(hrefs)}`);
  }
  ok(links.every((l) => l.rel === "noopener noreferrer nofollow" && l.target === "_blank"), "every link opens safely in a new tab");
  eq(await msg.locator(".md table tr").count(), 4, "the table: a header and three rows");
  eq(await msg.locator(".md .code code").evaluateAll((cs) => cs.map((c) => c.getAttribute("data-lang"))), ["python", "go", "ts"]);
  await until("the three code blocks to be highlighted", async () => (await msg.locator(".md .code code.hljs").count()) === 3);
  ok((await msg.locator(".md .code code span.hljs-keyword").count()) >= 6, "keywords are marked");
  eq(await msg.locator(".md .code button.copy").count(), 3, "a copy button on every code block");

  await msg.locator(".md .code button.copy").nth(1).click();
  await until("the go code on the clipboard", async () => (await p.page.evaluate(() => navigator.clipboard.readText())).startsWith("func Fib(n int) []int {"));
  await msg.locator(".actions-bar button.copy").click();
  const copied = await p.page.evaluate(() => navigator.clipboard.readText());
  ok(copied.startsWith("Here is how answers with links") && copied.includes("```python\n"), "the answer is copied as Markdown");
  eq(p.noErrors(), [], "no page errors");
});
