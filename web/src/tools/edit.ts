import type { VirtualFS } from "../vfs/index.js";
import { ArgumentError, argsObject, guard, optionalBool, requiredString } from "./args.js";
import type { ToolResult, ToolSpec } from "./types.js";

export const editSpec: ToolSpec = {
  name: "edit",
  kind: "write",
  description:
    "Replace exact text in a file of the browser's virtual file system. `old_string` must match the file " +
    "exactly (whitespace and indentation included, without the line-number prefix that `read` shows) and " +
    "must occur exactly once, unless `replace_all` is true. Read the file first." +
    " Writing /AGENT.md or anything under /.scripts/ (the site's instructions and the saved scripts) asks the user first in every work mode except bypass.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Absolute file path." },
      old_string: { type: "string", minLength: 1, description: "The exact text to replace." },
      new_string: { type: "string", description: "The replacement text; must differ from old_string." },
      replace_all: { type: "boolean", default: false, description: "Replace every occurrence instead of requiring a unique one." },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  },
};

/** `edit {path, old_string, new_string, replace_all=false}`. */
export function edit(args: unknown, vfs: VirtualFS): Promise<ToolResult> {
  return guard("edit", async () => {
    const a = argsObject("edit", args);
    const path = requiredString("edit", a, "path");
    const oldStr = requiredString("edit", a, "old_string", { nonEmpty: true });
    const newStr = requiredString("edit", a, "new_string");
    const all = optionalBool("edit", a, "replace_all", false);
    if (oldStr === newStr) throw new ArgumentError("old_string and new_string are identical; nothing to change");
    const content = await vfs.readFile(path);
    const positions = occurrences(content, oldStr);
    if (positions.length === 0) {
      throw new ArgumentError(
        `old_string was not found in ${path}. It must match exactly, including whitespace and indentation; read the file again and copy the text.`,
      );
    }
    if (positions.length > 1 && !all) {
      throw new ArgumentError(
        `old_string occurs ${positions.length} times in ${path}. Include more surrounding text to make it unique, or set replace_all to true.`,
      );
    }
    // Splice by position rather than String.replace, whose replacement string
    // would interpret `$&`, `$1`, ... inside new_string.
    let out = "";
    let from = 0;
    for (const p of positions) {
      out += content.slice(from, p) + newStr;
      from = p + oldStr.length;
    }
    out += content.slice(from);
    const r = await vfs.writeFile(path, out);
    const n = positions.length;
    return `Edited ${r.path}: replaced ${n} occurrence${n === 1 ? "" : "s"} (file is now ${r.bytes} bytes)`;
  });
}

/** Start offsets of non-overlapping occurrences, left to right. */
function occurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}
