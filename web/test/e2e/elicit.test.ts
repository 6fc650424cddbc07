// Test: an MCP server's questions during a call (elicitations) show in the real
// page under the call's card, as the server asked them: a one-field form, the
// thirteen-field form of every kind the specification allows (checked in the
// page before it goes, and again on the server), and a link that opens only on
// a click. Each answer goes back to the MCP server, whose tool result the model
// reads.

import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, includes, test } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer, bin } from "./servers.js";

const after = { chunks: ["After: ", "{{last_result}}"] };
const script = {
  name: "elicit",
  turns: [
    turn("(?i)colour", [{ text: "Asking the server.", tool_calls: [call("test__ask", { question: "Which colour?" })] }, after]),
    turn("(?i)profile", [{ text: "Asking for a profile.", tool_calls: [call("test__ask", { question: "Your profile", form: "profile" })] }, after]),
    turn("(?i)sign", [{ text: "Asking to sign in.", tool_calls: [call("test__ask", { question: "Sign in to continue", url: "https://auth.example.test/start?s=1" })] }, after]),
  ],
};

test("elicitation: an MCP server's forms and links are answered in the page", async () => {
  const config = join(tmpdir(), `rtc-e2e-mcp-${process.pid}.json`);
  await writeFile(config, JSON.stringify({ servers: { test: { command: bin.mcpserver } } }));
  const go = await GoServer.start({ script, args: ["-mcp-config", config] });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "elicit-user" }));
  const allow = async () => {
    const confirm = p.page.locator("rtc-agent .prompt.confirm");
    await confirm.waitFor({ timeout: 30_000 });
    await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  };

  // One field.
  await p.send("ask me a colour");
  await allow();
  let form = p.page.locator("rtc-agent form.prompt.elicit");
  await form.waitFor({ timeout: 30_000 });
  eq(await form.locator(".prompt-head").textContent(), "The MCP server “test” asks", "the server is named");
  includes(await form.innerText(), "Which colour?", "the server's message is shown");
  await form.getByRole("textbox", { name: "answer" }).fill("deep blue");
  await form.getByRole("button", { name: "Send" }).click();
  includes(await p.waitForAnswer('accept {"answer":"deep blue"}', 30_000), "After:");
  eq(await form.count(), 0, "the form is gone");

  // Thirteen fields, in the server's order.
  await p.send("my profile");
  await allow();
  form = p.page.locator("rtc-agent form.prompt.elicit");
  await form.waitFor({ timeout: 30_000 });
  eq(
    await form.locator(".field").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.field)),
    ["name", "email", "site", "born", "meet", "age", "height", "news", "size", "plan", "colour", "langs", "days"],
    "one field per property, in order",
  );
  await form.getByRole("textbox", { name: "Full name" }).fill("Ada Lovelace");
  await form.getByRole("textbox", { name: "Email" }).fill("not an address");
  await form.getByRole("spinbutton", { name: "Age" }).fill("36");
  await form.getByRole("radio", { name: "M", exact: true }).check();
  await form.getByRole("button", { name: "Send" }).click();
  eq(await form.locator(".field input:invalid").count(), 1, "the bad email is held back by the page");
  await form.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
  await form.getByRole("textbox", { name: "Web site" }).fill("https://ada.example.com");
  await form.getByLabel("Birthday").fill("1990-12-10");
  await form.getByRole("spinbutton", { name: "Height in metres" }).fill("1.7");
  await form.getByRole("checkbox", { name: "Yes" }).check();
  await form.getByRole("radio", { name: "Professional" }).check();
  await form.getByRole("radio", { name: "Green" }).check();
  await form.getByRole("checkbox", { name: "go", exact: true }).check();
  await form.getByRole("checkbox", { name: "Friday" }).check();
  await form.getByRole("button", { name: "Send" }).click();
  const profile = await p.waitForAnswer('After: accept {"age"', 30_000);
  const content = JSON.parse(profile.slice(profile.indexOf("{")));
  eq(
    content,
    { age: 36, born: "1990-12-10", colour: "g", days: ["fri"], email: "ada@example.com", height: 1.7, langs: ["go"], name: "Ada Lovelace", news: true, plan: "pro", site: "https://ada.example.com", size: "M" },
    "the server got every field as typed (its keys in order)",
  );

  // A link: its origin shown, opened only on the click.
  await p.send("sign me in");
  await allow();
  form = p.page.locator("rtc-agent form.prompt.elicit.url");
  await form.waitFor({ timeout: 30_000 });
  eq(await form.locator(".origin").innerText(), "https://auth.example.test", "the origin is shown");
  await p.page.context().route("https://auth.example.test/**", (r) => r.fulfill({ contentType: "text/html", body: "<p>signed in</p>" }));
  const popup = p.page.context().waitForEvent("page", { timeout: 10_000 });
  await form.getByRole("button", { name: "Open auth.example.test" }).click();
  const opened = await popup;
  includes(opened.url(), "auth.example.test/start?s=1", "the link opened in a new tab");
  eq(await opened.evaluate(() => window.opener), null, "without a handle on the page");
  await opened.close();
  await p.waitForAnswer("After: accept null", 30_000);
  eq(p.noErrors(), [], "no page errors");
});
