// The person's side of prompts: the confirmation of a tool call, the askUser
// form (1-4 questions, options, multiSelect, a free "Other" answer; a question
// without options has only its text field) and an MCP server's question
// (elicit.ts).

import { questionsOf } from "../executor/ask.js";
import type { AskAnswer, Prompt, PromptAnswer } from "../executor/prompts.js";
import { protectedRootOf } from "../executor/permissions.js";
import { showInvisible, showPath } from "../vfs/path.js";
import { codeBlock } from "./code.js";
import { elicitForm } from "./elicit.js";
import { samplingServer, toolTitle, type SampleRequest } from "../executor/elicit.js";
import { h } from "./dom.js";
import { targetView } from "./target.js";

export function promptForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  if (p.kind === "elicit" && p.elicitation) return elicitForm(p, answer);
  return p.kind === "ask" ? askForm(p, answer) : confirmForm(p, answer);
}

/**
 * A permission dialog: the product asks whether a call may run. Its head says so
 * in words the model cannot produce elsewhere (askUser forms carry their own head,
 * "The assistant asks"), and it shows what will run: the saved code of a `script
 * run`, or the host tool and arguments of a call a running script makes.
 */
function confirmForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  let done = false;
  const reason = h("input", {
    class: "deny-reason",
    props: { type: "text", maxLength: 1000, placeholder: "Reason for denying (optional; the assistant reads it)" },
    attrs: { "aria-label": "Reason for denying" },
  });
  const reply = (a: PromptAnswer) => {
    if (done) return;
    done = true;
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    reason.disabled = true;
    answer(a);
  };
  const deny = () => {
    const why = reason.value.trim();
    reply({ type: "confirm", approved: false, ...(why ? { reason: why } : {}) });
  };
  reason.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      deny();
    }
  });
  const tool = p.call ? p.call.tool : p.rtc.tool_name;
  const box = h(
    "div",
    { class: "prompt confirm", attrs: { role: "group", "aria-label": `Permission: ${p.call ? `script call of ${p.call.tool}` : p.rtc.tool_name}` } },
    h("div", { class: "prompt-head" }, "Permission request"),
    p.again ? h("div", { class: "note again", attrs: { role: "alert" } }, p.again) : null,
    ...confirmBody(p),
    ...targetView(p),
    reason,
    h(
      "div",
      { class: "actions" },
      h("button", { class: "danger deny", on: { click: deny } }, "Deny"),
      p.allowForChat
        ? h(
            "button",
            { class: "allow-chat", title: `Run ${toolTitle(tool)} without asking for the rest of this conversation (you can revoke it above the messages)`, on: { click: () => reply({ type: "confirm", approved: true, scope: "session" }) } },
            "Allow for this chat",
          )
        : null,
      h("button", { class: "primary allow", on: { click: () => reply({ type: "confirm", approved: true }) } }, "Allow"),
    ),
  );
  return box;
}

function confirmBody(p: Prompt): HTMLElement[] {
  const server = samplingServer(p.rtc.tool_name);
  if (server !== null) return samplingBody(server, p.rtc.arguments as SampleRequest);
  if (p.call) {
    return [
      h("p", { class: "q" }, `Allow the running script to call ${p.call.tool}?`),
      h(
        "div",
        { class: "note" },
        `${showInvisible(p.call.title)}. ${p.call.byTool ? "The site asks before this tool runs, from a script too." : "A direct call would ask in this work mode, so this one does too."} Its arguments:`,
      ),
      h("pre", { class: "call-args" }, showInvisible(pretty(p.call.args))),
    ];
  }
  if (p.script) {
    const s = p.script;
    if (s.code === null) {
      return [h("p", { class: "q" }, `Allow this script run?`), h("div", { class: "note bad" }, `No script is saved as ${showPath(s.path)}; the run will fail.`)];
    }
    return [
      h("p", { class: "q" }, `Allow this script run?`),
      h("div", { class: "note" }, `It runs the saved script ${showPath(s.path)}. This is the code that will run (SHA-256 ${s.sha256?.slice(0, 12)}…); if the file changes before it starts, you are asked again.`),
      scriptCode(s.code),
    ];
  }
  if (p.rtc.tool_call_id.startsWith("app:")) {
    return [
      h("p", { class: "q" }, `The tool's view asks to run ${toolTitle(p.rtc.tool_name)}. Allow it?`),
      h("div", { class: "note" }, "The current work mode asks before this tool runs, as it would for the assistant. Its arguments:"),
      h("pre", { class: "call-args" }, showInvisible(pretty(p.rtc.arguments))),
    ];
  }
  const path = (p.rtc.arguments as { path?: unknown } | null)?.path;
  const root = p.rtc.tool_name === "write" || p.rtc.tool_name === "edit" ? protectedRootOf(path) : null;
  return [
    h("p", { class: "q" }, `Allow this ${p.rtc.tool_name} call?`),
    h(
      "div",
      { class: "note" },
      root
        ? `${root} holds the site's instructions or saved scripts, so changing it asks every time (so does changing a path that reads as it). Its arguments are shown above.`
        : p.byTool
          ? "The site asks before this tool runs, in every work mode. Its arguments are shown above."
          : "The current work mode asks before this tool runs. Its arguments are shown above.",
    ),
  ];
}

/**
 * An MCP server's request to use the model: what it would send, as it would
 * send it (it cannot be edited here), so the person knows what the session's
 * model reads and pays for.
 */
function samplingBody(server: string, q: SampleRequest): HTMLElement[] {
  const shown = showInvisible(server);
  return [
    h("p", { class: "q" }, `Allow the MCP server “${shown}” to use the assistant's model?`),
    h("div", { class: "note" }, `It sends this to the model, up to ${q.max_tokens} tokens of answer, counted to this chat; the answer goes to the server.`),
    h(
      "div",
      { class: "sample" },
      q.system_prompt ? h("div", { class: "sample-msg system" }, h("span", { class: "role" }, "instructions"), h("pre", null, showInvisible(q.system_prompt))) : null,
      ...(q.messages ?? []).map((m) => h("div", { class: `sample-msg ${m.role}` }, h("span", { class: "role" }, m.role), h("pre", null, showInvisible(m.text)))),
    ),
  ];
}

/**
 * The code shown for approval, as the tool card shows script code: highlighted, with
 * format and bidi characters escaped so the text cannot read differently from what
 * runs.
 */
function scriptCode(code: string): HTMLElement {
  const block = codeBlock(showInvisible(code), "javascript");
  block.classList.add("script-code");
  return block;
}

function pretty(v: unknown): string {
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

function askForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  const questions = questionsOf(p.rtc.arguments) ?? [];
  // The questions are the model's words: the head says so, and the style is not a
  // permission dialog's, so a question titled "Allow this script call?" cannot pass
  // for the product's own.
  const form = h(
    "form",
    { class: "prompt ask", attrs: { "aria-label": "Questions from the assistant" } },
    h("div", { class: "prompt-head" }, "The assistant asks"),
    h("div", { class: "note" }, "Written by the assistant, not by this site. Your answer goes back to the assistant; it approves nothing."),
  );
  const reads: (() => AskAnswer)[] = [];
  questions.forEach((q, qi) => {
    const name = `q-${p.id}-${qi}`;
    const type = q.multiSelect ? "checkbox" : "radio";
    const inputs: HTMLInputElement[] = [];
    // The model's words are shown as tool cards show text: bidi controls and
    // invisible characters escaped, so "report\u202Efdp.exe" cannot read as
    // "report…exe.pdf". Values sent back stay as written.
    const question = showInvisible(q.question);
    const fs = h("fieldset", null, h("legend", { class: "q" }, q.header ? h("span", { class: "chip" }, showInvisible(q.header)) : null, question));
    if (!q.options?.length) {
      // A question without options is answered in its text field only.
      const text = h("input", { props: { type: "text", placeholder: "Your answer…" }, attrs: { "aria-label": `Answer to: ${question}` } });
      fs.append(h("label", { class: "other" }, text));
      form.append(fs);
      reads.push(() => ({ question: q.question, selected: [], ...(text.value.trim() ? { other: text.value.trim() } : {}) }));
      return;
    }
    for (const o of q.options) {
      const input = h("input", { props: { type, name, value: o.label } });
      inputs.push(input);
      fs.append(h("label", null, input, h("span", null, showInvisible(o.label), o.description ? h("small", null, showInvisible(o.description)) : null)));
    }
    const otherBox = h("input", { props: { type, name, value: "__other__" }, attrs: { "aria-label": "Other" } });
    const otherText = h("input", {
      props: { type: "text", placeholder: "Other…" },
      attrs: { "aria-label": `Other answer to: ${question}` },
      on: { input: () => (otherBox.checked = otherText.value.trim() !== "") },
    });
    fs.append(h("label", { class: "other" }, otherBox, otherText));
    form.append(fs);
    reads.push(() => ({
      question: q.question,
      selected: inputs.filter((i) => i.checked).map((i) => i.value),
      ...(otherBox.checked && otherText.value.trim() ? { other: otherText.value.trim() } : {}),
    }));
  });
  const submit = h("button", { class: "primary", props: { type: "submit" } }, "Send answer");
  const skip = h("button", { props: { type: "button" }, on: { click: () => finish({ type: "dismiss", reason: "skipped by the user" }) } }, "Skip");
  const error = h("div", { class: "note bad", attrs: { role: "alert" } });
  form.append(error, h("div", { class: "actions" }, skip, submit));
  let done = false;
  const finish = (a: PromptAnswer) => {
    if (done) return;
    done = true;
    for (const el of form.querySelectorAll("button, input")) (el as HTMLInputElement).disabled = true;
    answer(a);
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const answers = reads.map((r) => r());
    if (answers.some((a) => a.selected.length === 0 && !a.other)) {
      error.textContent = "Please answer every question (or type your own answer).";
      return;
    }
    finish({ type: "ask", answers: answers.map((a) => ({ ...a, selected: a.selected.filter((s) => s !== "__other__") })) });
  });
  return form;
}
