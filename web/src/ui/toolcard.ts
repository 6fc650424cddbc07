// One tool call as a card: the tool, a one-line summary of its arguments, its RTC
// state, the arguments (a script's code as a highlighted code block, other
// values pretty-printed, long ones collapsed) and the result, and, while the
// person is asked, the confirmation or askUser form.

import type { Prompt } from "../executor/prompts.js";
import type { Rtc, RtcProgress, ToolCall } from "../protocol/types.js";
import { showInvisible, showPath } from "../vfs/path.js";
import { codeBlock } from "./code.js";
import { arrange, h } from "./dom.js";

const STATUS_TEXT: Record<string, string> = {
  writing: "writing…",
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

/** What a card keeps between updates: the parts that are kept when they do not change. */
interface CardParts {
  /** The host tool's own view (its `render`), rebuilt at every update. */
  view: HTMLElement | null;
  /** The arguments shown, as JSON with the tool's name: the section is rebuilt only when they change. */
  argsKey: string;
  args: HTMLDetailsElement;
  result: HTMLDetailsElement | null;
  error: HTMLDetailsElement | null;
  form: HTMLElement | null;
}

const parts = new WeakMap<HTMLElement, CardParts>();

/** A new card for `call` (see updateToolCard). */
export function toolCard(call: ToolCall, rtc: Rtc | undefined, form: HTMLElement | null, view: Node | null = null, writing = false): HTMLElement {
  const card = h("div", { class: "tool" });
  updateToolCard(card, call, rtc, form, view, writing);
  return card;
}

/**
 * Shows the call's current state in its card, in place: the card element stays,
 * its arguments section is kept while the arguments are the same (so a long
 * argument is not rendered again, and a section the person opened stays open),
 * the result and error keep whether they are open, and the form is not moved
 * when it is already there (typing in it is never interrupted). A call the model
 * is still `writing` has no RTC yet: its arguments are what it wrote so far.
 */
export function updateToolCard(card: HTMLElement, call: ToolCall, rtc: Rtc | undefined, form: HTMLElement | null, view: Node | null = null, writing = false): void {
  const status = rtc?.status ?? (writing ? "writing" : "requested");
  const args = rtc?.arguments ?? call.arguments;
  const prev = parts.get(card);
  card.dataset.tool = call.name;
  card.dataset.call = call.id;
  card.dataset.status = status;
  if (rtc) card.dataset.rtc = rtc.id;
  else delete card.dataset.rtc;
  const summary = showInvisible(summarize(call.name, args));
  const head = h(
    "div",
    { class: "head" },
    h("span", { class: "name" }, call.name),
    h("span", { class: "summary", title: summary }, summary),
    h("span", { class: "status", attrs: { "data-s": status } }, rtc?.status === "pending" && rtc.needs_confirmation ? "needs approval" : (Object.hasOwn(STATUS_TEXT, status) ? STATUS_TEXT[status] : status)),
  );
  const argsKey = `${call.name}\u0000${json(args)}`;
  let argsEl = prev?.args;
  if (!argsEl || prev!.argsKey !== argsKey) {
    argsEl = h("details", { class: "args", props: { open: argsEl?.open ?? false } }, h("summary", null, call.name === "script" ? "Code and arguments" : "Arguments"), argumentsView(call.name, args));
  }
  // Opened when the person is asked to approve: they decide on what it will do.
  if (form && form !== prev?.form && call.name !== "askUser") argsEl.open = true;
  // The host tool's own view of the call, under its head (see HostToolDefinition.render),
  // or an MCP tool's view: the same node again keeps its place (a frame moved loads again).
  const viewEl = !view ? null : prev?.view?.firstChild === view ? prev.view : h("div", { class: "view" }, view);
  const kids: HTMLElement[] = viewEl ? [head, viewEl, argsEl] : [head, argsEl];
  if (rtc?.status === "executing" && rtc.progress) {
    const view = progressView(rtc.progress);
    if (view) kids.push(view);
  }
  let result: HTMLDetailsElement | null = null;
  if (rtc && (rtc.status === "completed" || rtc.output !== undefined)) {
    result = h("details", { class: "result", props: { open: prev?.result?.open ?? false } }, h("summary", null, "Result"), h("pre", null, pretty(rtc.output ?? "")));
    kids.push(result);
  }
  let error: HTMLDetailsElement | null = null;
  if (rtc?.error && rtc.status !== "completed") {
    error = h("details", { class: "error", props: { open: prev?.error?.open ?? true } }, h("summary", null, rtc.status === "rejected" ? "Reason" : "Error"), h("pre", null, showInvisible(rtc.error)));
    kids.push(error);
  }
  if (form) kids.push(form);
  arrange(card, kids);
  parts.set(card, { view: viewEl, argsKey, args: argsEl, result, error, form });
}

/** JSON of a value for comparing arguments (a string that cannot be one for what JSON cannot write). */
function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "undefined";
  } catch {
    return `\u0000${String(v)}`;
  }
}

/**
 * A running call's progress: a bar when the total is known, else the count
 * (none at 0 with a message: a task's status), and the server's message (as
 * text, invisible characters shown). Nothing for a progress that is no finite
 * number.
 */
function progressView(p: RtcProgress): HTMLElement | null {
  if (typeof p.progress !== "number" || !Number.isFinite(p.progress)) return null;
  const total = typeof p.total === "number" && Number.isFinite(p.total) && p.total > 0 ? p.total : undefined;
  const statusOnly = total === undefined && p.progress === 0 && typeof p.message === "string" && p.message !== "";
  const count = statusOnly ? null : total === undefined ? showNumber(p.progress) : `${showNumber(p.progress)} / ${showNumber(total)}`;
  return h(
    "div",
    { class: "progress", attrs: { role: "status" } },
    total === undefined ? null : h("progress", { props: { max: total, value: Math.min(Math.max(p.progress, 0), total) }, attrs: { "aria-label": "Progress" } }),
    count === null ? null : h("span", { class: "count" }, count),
    typeof p.message === "string" && p.message ? h("span", { class: "message", title: showInvisible(p.message) }, showInvisible(p.message)) : null,
  );
}

/** A number as a person reads it: at most two decimals. */
function showNumber(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** A stable key: the card is rebuilt only when it changes. */
export function toolKey(call: ToolCall, rtc: Rtc | undefined, prompt: Prompt | undefined): string {
  return `${call.id}:${rtc?.offset ?? 0}:${rtc?.status ?? ""}:${prompt ? prompt.id : ""}`;
}

/** Arguments that name what a call acts on: shown whole however long (they wrap). */
const TARGET_ARGS: ReadonlySet<string> = new Set(["path", "name"]);

/** A value longer than this (characters or lines) starts collapsed; target arguments never do. */
const LONG_CHARS = 600;
const LONG_LINES = 12;

/**
 * A call's arguments, readable: a `script` call's code as a highlighted code
 * block; for other objects one row per argument, strings as written (not as
 * escaped JSON), other values as indented JSON, long values collapsed. Bidi and
 * zero-width characters are escaped everywhere, code included: what the person
 * approves reads as it runs.
 */
export function argumentsView(tool: string, args: unknown): HTMLElement {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return h("div", { class: "args-list" }, value(args));
  const rows = Object.entries(args as Record<string, unknown>).map(([k, v]) => {
    const shown = tool === "script" && k === "code" && typeof v === "string" ? codeBlock(showInvisible(v), "javascript") : TARGET_ARGS.has(k) ? h("pre", null, typeof v === "string" ? showPath(v) : pretty(v)) : value(v);
    return h("div", { class: "arg", attrs: { "data-arg": k } }, h("div", { class: "key" }, k), shown);
  });
  return h("div", { class: "args-list" }, rows.length ? rows : h("span", { class: "meta" }, "(none)"));
}

function value(v: unknown): HTMLElement {
  const text = pretty(v);
  const pre = h("pre", null, text);
  const lines = text.replace(/\n$/, "").split("\n");
  if (text.length <= LONG_CHARS && lines.length <= LONG_LINES) return pre;
  const first = (lines[0] ?? "").slice(0, 80);
  return h("details", { class: "args-more" }, h("summary", null, `${first}${lines.length > 1 || first.length < text.length ? " …" : ""} (${lines.length} lines, ${text.length} characters)`), pre);
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
    case "elicitation":
      return s("message") || s("url");
    case "askUser": {
      const q = Array.isArray(a.questions) ? (a.questions[0] as { question?: unknown } | undefined) : undefined;
      return typeof q?.question === "string" ? q.question : "";
    }
    default:
      return JSON.stringify(args).slice(0, 100);
  }
}
