// The person's side of prompts: the confirmation of a tool call and the askUser
// form (1-4 questions, options, multiSelect, a free "Other" answer).

import { questionsOf } from "../executor/ask.js";
import type { AskAnswer, Prompt, PromptAnswer } from "../executor/prompts.js";
import { h } from "./dom.js";

export function promptForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  return p.kind === "ask" ? askForm(p, answer) : confirmForm(p, answer);
}

function confirmForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  let done = false;
  const reply = (approved: boolean) => {
    if (done) return;
    done = true;
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    answer({ type: "confirm", approved });
  };
  const box = h(
    "div",
    { class: "prompt confirm", attrs: { role: "group", "aria-label": `Confirm ${p.rtc.tool_name}` } },
    h("p", { class: "q" }, `Allow this ${p.rtc.tool_name} call?`),
    h("div", { class: "note" }, "The current work mode asks before this tool runs. Its arguments are shown above."),
    h(
      "div",
      { class: "actions" },
      h("button", { class: "danger deny", on: { click: () => reply(false) } }, "Deny"),
      h("button", { class: "primary allow", on: { click: () => reply(true) } }, "Allow"),
    ),
  );
  return box;
}

function askForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  const questions = questionsOf(p.rtc.arguments) ?? [];
  const form = h("form", { class: "prompt ask", attrs: { "aria-label": "Questions from the assistant" } });
  const reads: (() => AskAnswer)[] = [];
  questions.forEach((q, qi) => {
    const name = `q-${p.id}-${qi}`;
    const type = q.multiSelect ? "checkbox" : "radio";
    const inputs: HTMLInputElement[] = [];
    const fs = h("fieldset", null, h("legend", { class: "q" }, q.header ? h("span", { class: "chip" }, q.header) : null, q.question));
    for (const o of q.options) {
      const input = h("input", { props: { type, name, value: o.label } });
      inputs.push(input);
      fs.append(h("label", null, input, h("span", null, o.label, o.description ? h("small", null, o.description) : null)));
    }
    const otherBox = h("input", { props: { type, name, value: "__other__" }, attrs: { "aria-label": "Other" } });
    const otherText = h("input", {
      props: { type: "text", placeholder: "Other…" },
      attrs: { "aria-label": `Other answer to: ${q.question}` },
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
