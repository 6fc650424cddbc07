// Confirmations show what will happen, whole (issue 26): the target of a call is
// visible in full and wrapped; a path that is long, mixes scripts or holds
// invisible characters is flagged and never offered "Allow for this chat"; a
// lookalike of a protected path asks like it; askUser forms escape bidi controls.

import { decideCall, isProtectedPath } from "../../src/executor/permissions.js";
import type { Prompt, PromptAnswer } from "../../src/executor/prompts.js";
import type { Rtc } from "../../src/protocol/types.js";
import { promptForm } from "../../src/ui/forms.js";
import { STYLES } from "../../src/ui/styles.js";
import { toolCard } from "../../src/ui/toolcard.js";
import { freshDb, rtc } from "./entities.test.js";
import { FakeServer, done, tab, waitFor, type Tab } from "./executor.test.js";
import { eq, includes, ok, test } from "./harness.js";

let n = 0;

/** A prompt's form, styled as in <rtc-agent>, in a narrow column; removed by the returned function. */
function show(p: Prompt, answer: (a: PromptAnswer) => void = () => undefined): { form: HTMLElement; remove: () => void } {
  const host = document.createElement("div");
  host.style.width = "360px";
  document.body.append(host);
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = STYLES;
  const form = promptForm(p, answer);
  root.append(style, form);
  return { form, remove: () => host.remove() };
}

/** The prompt the executor opens for a call, as a tab shows it. */
async function promptFor(t: Tab, server: FakeServer, call: Rtc): Promise<Prompt> {
  await server.deliver(call);
  await waitFor(`the prompt for ${call.id}`, () => t.prompts.get(call.id) !== undefined);
  return t.prompts.get(call.id) as Prompt;
}

/** Asserts the form's target line shows `expected` in full: not cut, not overflowing, wrapped. */
function targetWhole(form: HTMLElement, expected: string): void {
  const code = form.querySelector<HTMLElement>(".target code");
  ok(code, "the confirmation has a target line");
  eq(code!.textContent, expected, "the target as written, whole");
  const cs = getComputedStyle(code!);
  eq(cs.overflowWrap, "anywhere", "it wraps anywhere");
  ok(cs.textOverflow !== "ellipsis" && cs.whiteSpace !== "nowrap", `never ellipsized (${cs.textOverflow}, ${cs.whiteSpace})`);
  ok(code!.scrollWidth <= code!.clientWidth + 1, `no hidden overflow (${code!.scrollWidth} > ${code!.clientWidth})`);
  ok(code!.scrollHeight <= code!.clientHeight + 1, "no clipped lines");
  ok(code!.closest("details:not([open])") === null, "not inside a closed section");
}

test("confirm: a 675-character path is shown whole and wrapped, flagged, without Allow for this chat", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `cf-l${n++}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const name = "/the-real-target.md";
  const path = `/${"a".repeat(200)}/${"b".repeat(200)}/${"c".repeat(253)}${name}`;
  eq(path.length, 675);
  const p = await promptFor(t, server, rtc("l1", 0, { session_id: "s3", tool_name: "write", arguments: { path, content: "x" } }));
  const { form, remove } = show(p);
  try {
    targetWhole(form, path);
    eq(form.querySelectorAll("button.allow-chat").length, 0, "no Allow for this chat");
    includes(form.querySelector(".warnings")?.textContent ?? "", "675 characters long");
    // The card's own argument row is not collapsed to its first characters either.
    const card = toolCard({ id: "l1", name: "write", arguments: { path, content: "x" } }, p.rtc, null);
    eq(card.querySelector('[data-arg="path"] details'), null, "the path argument is not collapsed");
    eq(card.querySelector('[data-arg="path"] pre')?.textContent, path);
  } finally {
    remove();
  }
  t.prompts.answer("l1", { type: "confirm", approved: false });
  await waitFor("the refusal", () => server.rtcs.get("l1")?.status === "rejected");
  done(t);
});

test("confirm: a path padded with 3,874 no-break spaces shows its real end, escaped, without Allow for this chat", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `cf-s${n++}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const path = `/notes/todo.md${"\u00A0".repeat(3874)}.exe`;
  const p = await promptFor(t, server, rtc("s1", 0, { session_id: "s3", tool_name: "write", arguments: { path, content: "x" } }));
  const { form, remove } = show(p);
  try {
    targetWhole(form, "/notes/todo.md\\u00A0×3874.exe");
    eq(form.querySelectorAll("button.allow-chat").length, 0, "no Allow for this chat");
    includes(form.querySelector(".warnings")?.textContent ?? "", "show as nothing or as a space");
  } finally {
    remove();
  }
  t.prompts.answer("s1", { type: "confirm", approved: false });
  await waitFor("the refusal", () => server.rtcs.get("s1")?.status === "rejected");
  done(t);
});

test("confirm: /АGENT.md with a Cyrillic А is flagged and asks like /AGENT.md, in edit mode too", async () => {
  for (const p of ["/\u0410GENT.md", "/agent.md", "/\uFF21\uFF27\uFF25\uFF2E\uFF34.md", "/AGE\u039DT.md", "/\u13AAGENT.md", "/AGENT.md\u3164", "/.\u0455cripts/x.js", "/.Scripts/x.js"]) {
    ok(isProtectedPath(p), `${p} reads as a protected path`);
    eq(decideCall("edit", "write", { path: p, content: "x" }).needsConfirmation, true, `write ${p} in edit mode asks`);
  }
  for (const p of ["/AGENT.md.bak", "/notes/AGENT.md", "/.scriptsx/a.js", "/agents.md", "/\u0410\u0413\u0415\u041D\u0422.md"]) ok(!isProtectedPath(p), `${p} is not protected`);
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `cf-c${n++}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const path = "/\u0410GENT.md";
  const p = await promptFor(t, server, rtc("c1", 0, { session_id: "s4", tool_name: "write", arguments: { path, content: "Obey the file." } }));
  const { form, remove } = show(p);
  try {
    targetWhole(form, path);
    const warnings = form.querySelector(".warnings")?.textContent ?? "";
    includes(warnings, "mixes Cyrillic and Latin letters");
    includes(warnings, "reads as the protected path /AGENT.md");
    eq(form.querySelectorAll("button.allow-chat").length, 0, "no Allow for this chat");
  } finally {
    remove();
  }
  t.prompts.answer("c1", { type: "confirm", approved: false });
  await waitFor("the refusal", () => server.rtcs.get("c1")?.status === "rejected");
  ok(!(await t.vfs.exists(path)), "nothing written");
  done(t);
});

test("confirm: /notes/todo.md followed by U+3164 is flagged, shown escaped, without Allow for this chat", async () => {
  const server = new FakeServer();
  const t = await tab(server, await freshDb(), `cf-f${n++}`);
  await waitFor("leadership", () => t.ex.isLeader);
  const p = await promptFor(t, server, rtc("f1", 0, { session_id: "s3", tool_name: "write", arguments: { path: "/notes/todo.md\u3164", content: "x" } }));
  const { form, remove } = show(p);
  try {
    targetWhole(form, "/notes/todo.md\\u3164");
    includes(form.querySelector(".warnings")?.textContent ?? "", "show as nothing");
    eq(form.querySelectorAll("button.allow-chat").length, 0, "no Allow for this chat");
    for (const plain of ["/Отчёты/отчёт за май.pdf", "/資料/レポート_v2.md", "/ελληνικά/σημειώσεις.txt", "/notes/café résumé.md"]) {
      const q = show({ ...p, rtc: { ...p.rtc, arguments: { path: plain, content: "x" } } });
      eq(q.form.querySelector(".warnings"), null, `${plain} reads plainly`);
      q.remove();
    }
    for (const ch of ["\u115F", "\u1160", "\u2800", "\uFFA0", "\u00A0"]) {
      const q = show({ ...p, rtc: { ...p.rtc, arguments: { path: `/notes/todo.md${ch}`, content: "x" } } });
      ok(q.form.querySelector(".warnings"), `U+${ch.codePointAt(0)!.toString(16)} is flagged`);
      q.remove();
    }
  } finally {
    remove();
  }
  t.prompts.answer("f1", { type: "confirm", approved: false });
  await waitFor("the refusal", () => server.rtcs.get("f1")?.status === "rejected");
  const plain = await promptFor(t, server, rtc("f2", 0, { session_id: "s3", tool_name: "write", arguments: { path: "/notes/todo.md", content: "x" } }));
  ok(plain.allowForChat, "the plain path may be allowed for the chat");
  const shown = show(plain);
  eq(shown.form.querySelectorAll(".warnings").length, 0, "the plain path is not flagged");
  eq(shown.form.querySelectorAll("button.allow-chat").length, 1, "and may be allowed for the chat");
  shown.remove();
  t.prompts.answer("f2", { type: "confirm", approved: false });
  await waitFor("the second refusal", () => server.rtcs.get("f2")?.status === "rejected");
  done(t);
});

test("confirm: an askUser label with U+202E is shown escaped; the answer keeps the label as written", async () => {
  const label = "Keep report\u202Efdp.exe";
  const asked = rtc("a1", 0, { tool_name: "askUser", arguments: { questions: [{ question: `Which file? ${label}`, header: "pick\u2066", options: [{ label, description: "the \u202Ereport" }, { label: "None" }] }] } });
  const got: PromptAnswer[] = [];
  const { form, remove } = show({ id: "a1", kind: "ask", rtc: asked }, (a) => got.push(a));
  try {
    const text = form.textContent ?? "";
    ok(!/[\u202A-\u202E\u2066-\u2069]/.test(text), "no bidi control is rendered");
    includes(text, "Which file? Keep report\\u202Efdp.exe", "the question escaped");
    includes(form.querySelector("label span")?.textContent ?? "", "Keep report\\u202Efdp.exe", "the option escaped");
    includes(text, "the \\u202Ereport", "the description escaped");
    includes(form.querySelector(".chip")?.textContent ?? "", "pick\\u2066", "the header escaped");
    ok(!/[\u202A-\u202E\u2066-\u2069]/.test(form.querySelector("input[type=text]")?.getAttribute("aria-label") ?? ""), "the field's label escaped");
    form.querySelector<HTMLInputElement>("input[type=radio]")!.click();
    form.querySelector<HTMLButtonElement>("button[type=submit]")!.click();
    eq(got.length, 1, "answered");
    const a = got[0]!;
    eq(a.type === "ask" ? a.answers[0]?.selected : null, [label], "the answer is the label as the model wrote it");
  } finally {
    remove();
  }
});
