// An MCP server's question (an elicitation RTC) in the executor and its form:
// asked as the server sent it, an answer the schema refuses asked again with
// why, a fitting one and a decline sent as the call's output, arguments that
// cannot be shown failed with why; the form holds back what its inputs refuse.

import { elicitationOf } from "../../src/executor/elicit.js";
import type { PromptAnswer } from "../../src/executor/prompts.js";
import { promptForm } from "../../src/ui/forms.js";
import { freshDb, rtc } from "./entities.test.js";
import { FakeServer, done, tab, waitFor } from "./executor.test.js";
import { eq, includes, ok, test } from "./harness.js";

const schema = {
  type: "object",
  properties: { email: { type: "string", format: "email", title: "Email" }, n: { type: "integer", minimum: 1 }, size: { type: "string", enum: ["S", "M"] } },
  required: ["email", "n"],
};
const fields = [
  { name: "email", kind: "text", format: "email", title: "Email", required: true },
  { name: "n", kind: "integer", minimum: 1, required: true },
  { name: "size", kind: "choice", options: [{ value: "S" }, { value: "M" }] },
];
const question = (id: string, args: unknown = { server: "files", mode: "form", message: "Details?", fields, schema }) =>
  rtc(id, 0, { tool_name: "elicitation", tool_call_id: `elicit:parent:${id}`, arguments: args });

test("elicitation: asked as sent, refused content asked again, a fitting answer and a decline sent as the output", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `el${Date.now()}`);
  try {
    await waitFor("leadership", () => t.ex.isLeader);
    await server.deliver(question("e1"));
    await waitFor("the prompt", () => t.prompts.list().some((p) => p.id === "e1"));
    const p = t.prompts.get("e1")!;
    eq(p.kind, "elicit");
    eq(p.elicitation?.fields?.map((f) => f.name), ["email", "n", "size"], "the fields as the server sent them");
    t.prompts.answer("e1", { type: "elicit", action: "accept", content: { email: "not an address", n: 0 } });
    await waitFor("the prompt again", () => !!t.prompts.get("e1")?.again);
    includes(t.prompts.get("e1")!.again!, "email", "why: the email");
    includes(t.prompts.get("e1")!.again!, "n", "why: the number");
    eq(server.count("v1.rtc.submit_result", "e1"), 0, "nothing sent for a refused answer");
    t.prompts.answer("e1", { type: "elicit", action: "accept", content: { email: "a@example.com", n: 2, size: "M" } });
    await waitFor("the result", () => server.rtcs.get("e1")?.status === "completed");
    eq(server.rtcs.get("e1")?.output, { action: "accept", content: { email: "a@example.com", n: 2, size: "M" } });

    await server.deliver(question("e2"));
    await waitFor("the second prompt", () => t.prompts.list().some((p) => p.id === "e2"));
    t.prompts.answer("e2", { type: "elicit", action: "decline", content: { email: "x" } });
    await waitFor("the decline", () => server.rtcs.get("e2")?.status === "completed");
    eq(server.rtcs.get("e2")?.output, { action: "decline" }, "a decline carries no content");

    await server.deliver(question("e3", { server: "files", mode: "url", message: "Go", url: "javascript:alert(1)" }));
    await waitFor("the refusal", () => server.rtcs.get("e3")?.status === "failed");
    includes(server.rtcs.get("e3")?.error ?? "", "not an http or https URL");
    ok(!t.prompts.get("e3"), "a link that is not http(s) is never shown");
  } finally {
    done(t);
  }
});

test("elicitation form: one input per field, held back while an input refuses its value", async () => {
  const q = elicitationOf({ server: "files", mode: "form", message: "Details?", fields, schema });
  if (typeof q === "string") throw new Error(q);
  const got: PromptAnswer[] = [];
  const form = promptForm({ id: "f1", kind: "elicit", rtc: question("f1"), elicitation: q }, (a) => got.push(a)) as HTMLFormElement;
  document.body.append(form);
  try {
    eq([...form.querySelectorAll(".field")].map((f) => (f as HTMLElement).dataset.field), ["email", "n", "size"]);
    const email = form.querySelector<HTMLInputElement>('[data-field="email"] input')!;
    const n = form.querySelector<HTMLInputElement>('[data-field="n"] input')!;
    eq([email.type, email.required, n.type, n.min, n.step], ["email", true, "number", "1", "1"], "each input carries its field's constraints");
    email.value = "nope";
    n.value = "3";
    form.requestSubmit();
    await new Promise((r) => setTimeout(r, 50));
    eq(got.length, 0, "an invalid email is held back");
    email.value = "a@example.com";
    form.querySelector<HTMLInputElement>('[data-field="size"] input[value="S"]')!.checked = true;
    form.requestSubmit();
    await waitFor("the answer", () => got.length === 1);
    eq<unknown>(got[0], { type: "elicit", action: "accept", content: { email: "a@example.com", n: 3, size: "S" } });
  } finally {
    form.remove();
  }
});
