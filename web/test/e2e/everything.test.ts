// Test: the reference MCP server nobody here wrote, @modelcontextprotocol/server-everything
// (pinned in package.json, over stdio), asks its questions in the real page: its
// thirteen-field form of every kind the specification allows, with its defaults
// filled in, answered and read back by the server; its link, opened only on a
// click; its request to use the model, shown and allowed for the chat; its
// tool that runs as a task, whose question comes for the task; and its
// request to use the model and question sent as tasks the client runs.

import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, includes, test } from "./harness.js";
import { host, paths } from "./context.js";
import { AgentPage, call, newProfile, turn } from "./pages.js";
import { GoServer } from "./servers.js";

const after = { chunks: ["After: ", "{{last_result}}"] };
const script = {
  name: "everything",
  turns: [
    turn("(?i)form", [{ text: "Asking.", tool_calls: [call("everything__trigger-elicitation-request", {})] }, after]),
    turn("(?i)link", [{ text: "Linking.", tool_calls: [call("everything__trigger-url-elicitation", { url: "https://auth.example.test/consent", message: "Approve the demo." })] }, after]),
    // The server's request to use the model is answered by the same script.
    turn("(?i)context: a haiku", [{ text: "green tests at dawn" }]),
    turn("(?i)haiku please", [{ text: "Sampling.", tool_calls: [call("everything__trigger-sampling-request", { prompt: "a haiku", maxTokens: 40 })] }, after]),
    turn("(?i)research", [{ text: "Researching.", tool_calls: [call("everything__simulate-research-query", { topic: "python", ambiguous: true })] }, after]),
    turn("(?i)async haiku", [{ text: "Sampling as a task.", tool_calls: [call("everything__trigger-sampling-request-async", { prompt: "a haiku", maxTokens: 40 })] }, after]),
    turn("(?i)async inputs", [{ text: "Asking as a task.", tool_calls: [call("everything__trigger-elicitation-request-async", {})] }, after]),
  ],
};

test("server-everything: its thirteen-field form, its link, its request to use the model and its tasks are answered in the page", async () => {
  const config = join(tmpdir(), `rtc-e2e-everything-${process.pid}.json`);
  const server = join(paths.web, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  await writeFile(config, JSON.stringify({ servers: { everything: { command: process.execPath, args: [server, "stdio"] } } }));
  const go = await GoServer.start({ script, args: ["-mcp-config", config] });
  const p = await AgentPage.open(await newProfile(), host.url(go, { user: "everything-user" }));
  const allow = async () => {
    const confirm = p.page.locator("rtc-agent .prompt.confirm");
    await confirm.waitFor({ timeout: 60_000 });
    await confirm.getByRole("button", { name: "Allow", exact: true }).click();
  };

  await p.send("show me the form");
  await allow();
  const form = p.page.locator("rtc-agent form.prompt.elicit.form");
  await form.waitFor({ timeout: 60_000 });
  eq(
    await form.locator(".field").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.field)),
    ["name", "check", "firstLine", "email", "homepage", "birthdate", "integer", "number", "untitledSingleSelectEnum", "untitledMultipleSelectEnum",
      "titledSingleSelectEnum", "titledMultipleSelectEnum", "legacyTitledEnum"],
    "every field, in the server's order",
  );
  eq(await form.getByRole("textbox", { name: "String with default" }).inputValue(), "It was a dark and stormy night.", "a default is filled in");
  eq(await form.getByRole("spinbutton", { name: "Integer" }).inputValue(), "42");
  eq(await form.getByRole("combobox", { name: "Legacy Titled Single Select Enum" }).locator("option:checked").innerText(), "Cats", "legacy enumNames are the titles");
  await form.getByRole("textbox", { name: "String", exact: true }).fill("Ada Lovelace");
  await form.getByRole("checkbox", { name: "Yes" }).check();
  await form.getByRole("textbox", { name: "String with email format" }).fill("ada@example.com");
  await form.getByRole("combobox", { name: "Untitled Single Select Enum" }).selectOption("Joey");
  await form.getByRole("radio", { name: "Wonder Woman" }).check();
  await form.getByRole("combobox", { name: "Legacy Titled Single Select Enum" }).selectOption({ label: "Dogs" });
  await form.getByRole("button", { name: "Send" }).click();
  const answer = await p.waitForAnswer("User provided the requested information", 60_000);
  for (const line of ["Name: Ada Lovelace", "Agreed to terms: true", "Email: ada@example.com", "Favorite Integer: 42", "Favorite Number: 3.14"]) {
    includes(answer, line, "the server read the answer");
  }
  includes(answer, '"untitledSingleSelectEnum": "Joey"');
  includes(answer, '"titledSingleSelectEnum": "hero-3"');
  includes(answer, '"legacyTitledEnum": "pet-2"');

  await p.send("open the link");
  await allow();
  const link = p.page.locator("rtc-agent form.prompt.elicit.url");
  await link.waitFor({ timeout: 60_000 });
  eq(await link.locator(".origin").innerText(), "https://auth.example.test", "the origin is shown");
  await p.page.context().route("https://auth.example.test/**", (r) => r.fulfill({ contentType: "text/html", body: "<p>approved</p>" }));
  const popup = p.page.context().waitForEvent("page", { timeout: 10_000 });
  await link.getByRole("button", { name: "Open auth.example.test" }).click();
  await (await popup).close();
  includes(await p.waitForAnswer("User completed the URL elicitation flow", 60_000), "URL: https://auth.example.test/consent", "the server was told the person opened it");

  // A request to use the model: what would be sent is shown; allowed for this chat.
  await p.send("haiku please");
  await allow();
  // The call's own confirmation may still be on screen a moment after Allow:
  // the request is the confirmation that names the model.
  const sample = p.page.locator("rtc-agent .prompt.confirm", { hasText: "to use the assistant's model" });
  await sample.waitFor({ timeout: 60_000 });
  const shown = await sample.innerText();
  includes(shown, "Allow the MCP server “everything” to use the assistant's model?");
  includes(shown, "You are a helpful test server.", "the server's instructions are shown");
  includes(shown, "context: a haiku", "the message is shown");
  includes(shown, "up to 40 tokens", "the answer's limit is shown");
  await sample.getByRole("button", { name: "Allow for this chat" }).click();
  includes(await p.waitForAnswer("LLM sampling result", 60_000), "green tests at dawn", "the server got the model's answer");
  eq(await p.page.locator("rtc-agent .approvals .tool-name").allInnerTexts(), ["everything: use of the model"], "allowed in this chat, by server");

  // A tool that requires tasks: called as a task, its status shown under
  // the call, its question (input_required) asked in the page.
  await p.send("research python");
  await allow();
  const clarify = p.page.locator("rtc-agent form.prompt.elicit.form", { hasText: "could have multiple interpretations" });
  await clarify.waitFor({ timeout: 60_000 });
  await p.page.locator("rtc-agent .tool .progress .message", { hasText: "interpretations" }).waitFor({ timeout: 30_000 });
  await clarify.getByRole("radio", { name: "Python programming language" }).check();
  await clarify.getByRole("button", { name: "Send" }).click();
  const report = await p.waitForAnswer("Research Report", 60_000);
  includes(report, "Clarification: programming", "the task read the answer");
  includes(report, "working → input_required → working → completed");

  // The client runs tasks for the server: its request to use the model and
  // its question sent as tasks (its "-async" tools, listed because the client
  // declares them) are asked as any other, and the server polls their tasks.
  await p.send("async haiku");
  await allow();
  const sampled = await p.waitForAnswer("Async sampling completed", 60_000);
  includes(sampled, "green tests at dawn", "allowed for the chat already: the model answered the task");
  includes(sampled, "Task created", "the server got a task and polled it");
  await p.send("async inputs");
  await allow();
  const asyncForm = p.page.locator("rtc-agent form.prompt.elicit.form", { hasText: "async task demo" });
  await asyncForm.waitFor({ timeout: 60_000 });
  await asyncForm.getByRole("textbox", { name: "Your Name" }).fill("Grace Hopper");
  await asyncForm.getByRole("button", { name: "Send" }).click();
  includes(await p.waitForAnswer("Grace Hopper", 60_000), "[COMPLETED] User provided the requested information!", "the server read the task's answer");
  eq(p.noErrors(), [], "no page errors");
});
