import { normalizePath, type VirtualFS } from "../vfs/index.js";
import { ArgumentError, argsObject, clip, guard, optionalBool, optionalString, requiredString } from "./args.js";
import { splitLines } from "./read.js";
import type { ToolResult, ToolSpec } from "./types.js";

/** Most matching lines returned by one grep. */
export const GREP_MAX_MATCHES = 200;
/** Each matching line is cut to this many characters. */
export const GREP_MAX_LINE_CHARS = 300;

export const grepSpec: ToolSpec = {
  name: "grep",
  kind: "read",
  description:
    "Search file contents in the browser's virtual file system with a JavaScript regular expression, line by " +
    "line. `path` is a file or a directory searched recursively. Prints `path:line: text` for each matching " +
    `line (case-sensitive unless ignore_case), at most ${GREP_MAX_MATCHES} matches, each line cut to ` +
    `${GREP_MAX_LINE_CHARS} characters; a final note says when results were capped.`,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "JavaScript RegExp source without slashes or flags, e.g. TODO|FIXME or ^#+ " },
      path: { type: "string", default: "/", description: "File or directory to search. Defaults to the root '/'." },
      ignore_case: { type: "boolean", default: false, description: "Match letters case-insensitively." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

/** `grep {pattern, path="/", ignore_case=false}`. */
export function grep(args: unknown, vfs: VirtualFS): Promise<ToolResult> {
  return guard("grep", async () => {
    const a = argsObject("grep", args);
    const pattern = requiredString("grep", a, "pattern", { nonEmpty: true });
    const path = normalizePath(optionalString("grep", a, "path", "/"));
    const ignoreCase = optionalBool("grep", a, "ignore_case", false);
    let re: RegExp;
    try {
      // No `g` flag: a global RegExp keeps lastIndex between test() calls.
      re = new RegExp(pattern, ignoreCase ? "i" : "");
    } catch (err) {
      throw new ArgumentError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`);
    }
    const out: string[] = [];
    let capped = false;
    let filesSearched = 0;
    search: for (const e of await vfs.walk(path)) {
      if (e.type !== "file") continue;
      filesSearched++;
      const lines = splitLines(await vfs.readFile(e.path));
      for (let i = 0; i < lines.length; i++) {
        const line = (lines[i] as string).replace(/\r$/, "");
        if (!re.test(line)) continue;
        if (out.length === GREP_MAX_MATCHES) {
          capped = true;
          break search;
        }
        out.push(`${e.path}:${i + 1}: ${clip(line, GREP_MAX_LINE_CHARS)}`);
      }
    }
    if (out.length === 0) return `No matches for /${pattern}/ in ${filesSearched} file${filesSearched === 1 ? "" : "s"} under ${path}`;
    if (capped) out.push("", `[Stopped after ${GREP_MAX_MATCHES} matches; narrow the pattern or the path to see the rest.]`);
    return out.join("\n");
  });
}
