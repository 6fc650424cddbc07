// One tool call as a card: the tool, a one-line summary of its arguments, its RTC
// state, the arguments and the result, and, while the person is asked, the
// confirmation or askUser form.

import type { Prompt } from "../executor/prompts.js";
import type { Rtc, ToolCall } from "../protocol/types.js";
import { showInvisible } from "../vfs/path.js";
import { h } from "./dom.js";

const STATUS_TEXT: Record<string, string> = {
  requested: "requested",
  queued: "queued",
  pending: "pending",
  sent: "waiting for you",
  executing: "running",
  completed: "done",
  failed: "failed",
  timeout: "timed out",
  rejected: "rejected",
};

export function toolCard(call: ToolCall, rtc: Rtc | undefined, form: HTMLElement | null): HTMLElement {
  const status = rtc?.status ?? "requested";
  const args = rtc?.arguments ?? call.arguments;
  const card = h(
    "div",
    { class: "tool", attrs: { "data-tool": call.name, "data-status": status, "data-rtc": rtc?.id } },
    h(
      "div",
      { class: "head" },
      h("span", { class: "name" }, call.name),
      h("span", { class: "summary", title: showInvisible(summarize(call.name, args)) }, showInvisible(summarize(call.name, args))),
      h("span", { class: "status", attrs: { "data-s": status } }, rtc?.status === "pending" && rtc.needs_confirmation ? "needs approval" : (STATUS_TEXT[status] ?? status)),
    ),
    // Open while the person is asked to approve: they decide on what it will do.
    h("details", form && call.name !== "askUser" ? { props: { open: true } } : null, h("summary", null, "Arguments"), h("pre", null, pretty(args))),
  );
  if (rtc && (rtc.status === "completed" || rtc.output !== undefined)) {
    card.append(h("details", { class: "result" }, h("summary", null, "Result"), h("pre", null, pretty(rtc.output ?? ""))));
  }
  if (rtc?.error && rtc.status !== "completed") {
    card.append(h("details", { class: "error", props: { open: true } }, h("summary", null, rtc.status === "rejected" ? "Reason" : "Error"), h("pre", null, showInvisible(rtc.error))));
  }
  if (form) card.append(form);
  return card;
}

/** A stable key: the card is rebuilt only when it changes. */
export function toolKey(call: ToolCall, rtc: Rtc | undefined, prompt: Prompt | undefined): string {
  return `${call.id}:${rtc?.offset ?? 0}:${rtc?.status ?? ""}:${prompt ? prompt.id : ""}`;
}

/** Arguments and results as text; bidi and zero-width characters escaped so a name reads as stored. */
function pretty(v: unknown): string {
  if (typeof v === "string") return showInvisible(v);
  try {
    return showInvisible(JSON.stringify(v, null, 2) ?? String(v));
  } catch {
    return showInvisible(String(v));
  }
}

/** One line that says what a call does, e.g. `/notes/todo.md` or `**\/*.md in /`. */
export function summarize(tool: string, args: unknown): string {
  if (typeof args !== "object" || args === null) return typeof args === "string" ? args.slice(0, 80) : "";
  const a = args as Record<string, unknown>;
  const s = (k: string) => (typeof a[k] === "string" ? (a[k] as string) : "");
  switch (tool) {
    case "ls":
      return s("path") || "/";
    case "read":
    case "write":
      return s("path");
    case "edit":
      return `${s("path")}${a.replace_all ? " (all)" : ""}`;
    case "grep":
    case "find":
      return `${s("pattern")} in ${s("path") || "/"}`;
    case "script":
      return s("action") === "eval" ? (s("code").split("\n")[0] ?? "").slice(0, 80) : `${s("action")} ${s("name")}`;
    case "askUser": {
      const q = Array.isArray(a.questions) ? (a.questions[0] as { question?: unknown } | undefined) : undefined;
      return typeof q?.question === "string" ? q.question : "";
    }
    default:
      return JSON.stringify(args).slice(0, 100);
  }
}
