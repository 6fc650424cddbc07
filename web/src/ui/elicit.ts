// The form of an MCP server's question (an elicitation): one field per property
// of the schema the server sent, checked by the browser (each input's own
// constraints, then the schema) before the answer goes; or, in URL mode, a link
// that opens only on the person's click, its origin shown first.

import { checkContent, fieldTitle, linkOf, type Elicitation, type FormField } from "../executor/elicit.js";
import type { Prompt, PromptAnswer } from "../executor/prompts.js";
import { showInvisible } from "../vfs/path.js";
import { h } from "./dom.js";

/** Above this many options a single choice is a drop-down list, not radio buttons. */
const RADIO_MAX = 4;

export function elicitForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement {
  const q = p.elicitation!;
  const server = showInvisible(q.server);
  const form = h(
    "form",
    { class: `prompt elicit ${q.mode}`, attrs: { "aria-label": `Question from the MCP server ${server}` } },
    h("div", { class: "prompt-head" }, `The MCP server “${server}” asks`),
    h("div", { class: "note" }, "Written by a tool's server, not by this site or the assistant. Your answer goes to that server."),
    q.message ? h("p", { class: "q" }, showInvisible(q.message)) : null,
    p.again ? h("div", { class: "note again", attrs: { role: "alert" } }, p.again) : null,
  );
  let done = false;
  const finish = (a: PromptAnswer) => {
    if (done) return;
    done = true;
    for (const el of form.querySelectorAll("button, input, select")) (el as HTMLInputElement).disabled = true;
    answer(a);
  };
  const decline = h("button", { class: "danger decline", props: { type: "button" }, on: { click: () => finish({ type: "elicit", action: "decline" }) } }, "Decline");
  if (q.mode === "url") {
    const link = linkOf(q.url ?? "")!;
    // The origin is what the person trusts or not: shown on its own, before the rest of the link.
    form.append(
      h("div", { class: "link" }, h("span", null, "Opens "), h("strong", { class: "origin" }, link.origin), h("div", { class: "url" }, showInvisible(link.href))),
      h(
        "div",
        { class: "actions" },
        decline,
        h(
          "button",
          {
            class: "primary open",
            props: { type: "button" },
            on: {
              click: () => {
                window.open(link.href, "_blank", "noopener,noreferrer");
                finish({ type: "elicit", action: "accept" });
              },
            },
          },
          `Open ${link.host}`,
        ),
      ),
    );
    return form;
  }
  const reads = (q.fields ?? []).map((f, i) => field(form, f, `${p.id}-${i}`));
  const error = h("div", { class: "note bad", attrs: { role: "alert" } });
  form.append(error, h("div", { class: "actions" }, decline, h("button", { class: "primary", props: { type: "submit" } }, "Send")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (done || !form.reportValidity()) return;
    const content: Record<string, unknown> = {};
    for (const r of reads) r(content);
    void checkContent(q as Elicitation, content).then((problem) => {
      error.textContent = problem ?? "";
      if (!problem) finish({ type: "elicit", action: "accept", content });
    });
  });
  return form;
}

/** Adds f's input to the form; the returned function puts its value into the content (nothing when empty). */
function field(form: HTMLElement, f: FormField, id: string): (content: Record<string, unknown>) => void {
  const title = showInvisible(fieldTitle(f));
  const desc = f.description ? h("small", { class: "desc" }, showInvisible(f.description)) : null;
  const req = f.required ? h("span", { class: "req", attrs: { "aria-hidden": "true" } }, " *") : null;
  const box = h("div", { class: `field ${f.kind}`, attrs: { "data-field": f.name } });
  form.append(box);
  const options = f.options ?? [];
  if (f.kind === "choices" || (f.kind === "choice" && options.length <= RADIO_MAX) || f.kind === "boolean") {
    const fs = h("fieldset", null, h("legend", null, title, req), desc);
    box.append(fs);
    if (f.kind === "boolean") {
      const input = h("input", { props: { type: "checkbox", checked: f.default === true } });
      fs.append(h("label", null, input, h("span", null, "Yes")));
      return (c) => void (c[f.name] = input.checked);
    }
    const multi = f.kind === "choices";
    const chosen = new Set<string>(multi ? (Array.isArray(f.default) ? (f.default as string[]) : []) : typeof f.default === "string" ? [f.default] : []);
    const inputs = options.map((o, i) => {
      const input = h("input", { props: { type: multi ? "checkbox" : "radio", name: `f-${id}`, value: o.value, checked: chosen.has(o.value), required: !multi && !!f.required && i === 0 } });
      fs.append(h("label", null, input, h("span", null, showInvisible(o.title || o.value))));
      return input;
    });
    return (c) => {
      const picked = inputs.filter((i) => i.checked).map((i) => i.value);
      if (multi) {
        if (picked.length || f.required || f.min_items) c[f.name] = picked;
      } else if (picked.length) c[f.name] = picked[0];
    };
  }
  const label = h("label", null, h("span", { class: "title" }, title, req));
  box.append(label);
  if (f.kind === "choice") {
    const select = h("select", { props: { required: !!f.required } }, h("option", { props: { value: "" } }, "—"));
    for (const o of options) select.append(h("option", { props: { value: o.value, selected: f.default === o.value } }, showInvisible(o.title || o.value)));
    label.append(select);
    if (desc) box.append(desc);
    return (c) => void (select.value && (c[f.name] = select.value));
  }
  const input = h("input", { props: { required: !!f.required } });
  if (f.kind === "number" || f.kind === "integer") {
    input.type = "number";
    input.step = f.kind === "integer" ? "1" : "any";
    if (f.minimum !== undefined) input.min = String(f.minimum);
    if (f.maximum !== undefined) input.max = String(f.maximum);
    if (typeof f.default === "number") input.value = String(f.default);
  } else {
    input.type = ({ email: "email", uri: "url", date: "date", "date-time": "datetime-local" } as Record<string, string>)[f.format ?? ""] ?? "text";
    if (f.min_length !== undefined) input.minLength = f.min_length;
    if (f.max_length !== undefined) input.maxLength = f.max_length;
    if (typeof f.default === "string") input.value = f.format === "date-time" ? localTime(f.default) : f.default;
  }
  label.append(input);
  if (desc) box.append(desc);
  return (c) => {
    const v = input.value.trim();
    if (v === "") return;
    if (input.type === "number") c[f.name] = Number(v);
    else if (input.type === "datetime-local") c[f.name] = new Date(v).toISOString();
    else c[f.name] = v;
  };
}

/** A date-time as a datetime-local input shows it: the person's local time, to the minute. */
function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
