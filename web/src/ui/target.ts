// The target line of a confirmation: what the call acts on (the file it writes,
// the saved script it runs, the host tool it calls), shown whole and wrapped,
// never cut, with invisible characters escaped; under it the plain warnings of a
// path that may not read as what it is (long, mixed scripts, invisible
// characters, a protected path's lookalike).

import type { Prompt } from "../executor/prompts.js";
import { targetWarnings } from "../executor/permissions.js";
import { showPath } from "../vfs/path.js";
import { h } from "./dom.js";

interface Target {
  /** What the call does to it, e.g. "Writes the file". */
  what: string;
  /** A path (escaped with showPath and checked for warnings) or a tool's name. */
  path?: unknown;
  name?: string;
}

const FS_VERBS: Record<string, string> = {
  "rtcAgent.fs.write": "Writes the file",
  "rtcAgent.fs.remove": "Removes",
  "rtcAgent.fs.mkdir": "Creates the folder",
};

export function targetsOf(p: Prompt): Target[] {
  if (p.call) {
    const args = Array.isArray(p.call.args) ? (p.call.args as unknown[]) : [];
    if (p.call.tool === "rtcAgent.fs.rename") return [{ what: "Renames", path: args[0] }, { what: "to", path: args[1] }];
    if (Object.hasOwn(FS_VERBS, p.call.tool)) return [{ what: FS_VERBS[p.call.tool] as string, path: args[0] }];
    return [{ what: "Calls the host tool", name: p.call.tool }];
  }
  if (p.script) return [{ what: "Runs the saved script", path: p.script.path }];
  const tool = p.rtc.tool_name;
  const args = p.rtc.arguments;
  const path = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as { path?: unknown }).path : undefined;
  if (tool === "write") return [{ what: "Writes the file", path }];
  if (tool === "edit") return [{ what: "Edits the file", path }];
  if (tool === "script") return []; // eval: the code shown is what runs
  if (path !== undefined) return [{ what: `${tool} on`, path }];
  return [{ what: p.rtc.executor === "server" ? "Calls the server's tool" : "Calls the host tool", name: tool }];
}

/** The target lines and, when a path may mislead, its warnings (empty for eval). */
export function targetView(p: Prompt): HTMLElement[] {
  const targets = targetsOf(p);
  if (targets.length === 0) return [];
  const warnings = [...new Set(targets.flatMap((t) => targetWarnings(t.path)))];
  const lines: HTMLElement[] = targets.map((t) =>
    h(
      "div",
      { class: "target", attrs: { "data-flagged": warnings.length > 0 } },
      h("span", { class: "what" }, t.what),
      h("code", null, t.name ?? (typeof t.path === "string" ? showPath(t.path) : `(not a path: ${JSON.stringify(t.path) ?? "nothing"})`)),
    ),
  );
  if (warnings.length) {
    lines.push(h("ul", { class: "warnings", attrs: { role: "alert" } }, ...warnings.map((w) => h("li", null, w))));
  }
  return lines;
}
