import type { VirtualFS } from "../vfs/index.js";
import { ArgumentError, argsObject, guard, optionalInt, requiredString } from "./args.js";
import type { ToolResult, ToolSpec } from "./types.js";

/** Default number of lines returned by one read. */
export const READ_DEFAULT_LIMIT = 2000;
/** Longer lines are cut; a minified file would otherwise blow the result budget. */
export const READ_MAX_LINE_CHARS = 2000;
/** Stop adding lines once the output reaches this many characters. */
export const READ_MAX_OUTPUT_CHARS = 200_000;

export const readSpec: ToolSpec = {
  name: "read",
  kind: "read",
  description:
    "Read a text file from the browser's virtual file system. Returns numbered lines like `cat -n` " +
    "(line number, a tab, then the line). Reads at most `limit` lines from line `offset`; when more " +
    `remain, a final note says which offset to use next. Lines longer than ${READ_MAX_LINE_CHARS} characters are cut.`,
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Absolute file path, e.g. /docs/notes.md." },
      offset: { type: "integer", minimum: 1, default: 1, description: "1-based line number to start at." },
      limit: { type: "integer", minimum: 1, default: READ_DEFAULT_LIMIT, description: "Maximum number of lines to return." },
    },
    required: ["path"],
    additionalProperties: false,
  },
};

/** `read {path, offset=1, limit=2000}`. */
export function read(args: unknown, vfs: VirtualFS): Promise<ToolResult> {
  return guard("read", async () => {
    const a = argsObject("read", args);
    const path = requiredString("read", a, "path");
    const offset = optionalInt("read", a, "offset", 1, 1);
    const limit = optionalInt("read", a, "limit", READ_DEFAULT_LIMIT, 1);
    const content = await vfs.readFile(path);
    const lines = splitLines(content);
    const total = lines.length;
    if (total === 0) return `[${path} is empty]`;
    if (offset > total) {
      throw new ArgumentError(`offset ${offset} is past the end of ${path}, which has ${total} line${total === 1 ? "" : "s"}`);
    }
    const out: string[] = [];
    let chars = 0;
    let last = offset - 1;
    for (let n = offset; n <= total && n < offset + limit; n++) {
      const line = numberLine(n, lines[n - 1] ?? "");
      if (chars + line.length > READ_MAX_OUTPUT_CHARS && out.length > 0) break;
      out.push(line);
      chars += line.length + 1;
      last = n;
    }
    if (last < total) {
      out.push("", `[Showing lines ${offset}-${last} of ${total}. Use offset=${last + 1} to read more.]`);
    }
    return out.join("\n");
  });
}

/** Lines of a text; a final newline ends the last line rather than starting an empty one. */
export function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function numberLine(n: number, line: string): string {
  // Drop a CR of CRLF files from the view only; the file keeps it for `edit`.
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  const shown = text.length > READ_MAX_LINE_CHARS
    ? `${text.slice(0, READ_MAX_LINE_CHARS)}… [line cut, ${text.length - READ_MAX_LINE_CHARS} more characters]`
    : text;
  return `${String(n).padStart(6, " ")}\t${shown}`;
}
