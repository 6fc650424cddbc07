import { gramQuery, normalizePath, type VfsStat } from "../vfs/index.js";
import { argsObject, guard, optionalBool, optionalString, requiredString } from "./args.js";
import { IN_PAGE_MAX_CHARS } from "./search/client.js";
import { requiredLiterals } from "./search/literals.js";
import { runSearch } from "./search/run.js";
import type { ToolContext, ToolResult, ToolSpec } from "./types.js";

/** Most matching lines returned by one grep. */
export const GREP_MAX_MATCHES = 200;
/** Each matching line is cut to this many characters. */
export const GREP_MAX_LINE_CHARS = 300;

export const grepSpec: ToolSpec = {
  name: "grep",
  kind: "read",
  description:
    "Search file contents in the browser's virtual file system with a regular expression in RE2 syntax (as " +
    "ripgrep uses: no backreferences or lookaround; matching takes linear time), line by line. `path` is a file " +
    "or a directory searched recursively. Prints `path:line: text` for each matching " +
    `line (case-sensitive unless ignore_case), at most ${GREP_MAX_MATCHES} matches, each line cut to ` +
    `${GREP_MAX_LINE_CHARS} characters; a final note says when results were capped.`,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "RE2 regular expression without slashes or flags, e.g. TODO|FIXME or ^#+ or (?i)error" },
      path: { type: "string", default: "/", description: "File or directory to search. Defaults to the root '/'." },
      ignore_case: { type: "boolean", default: false, description: "Match letters case-insensitively." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

/** `grep {pattern, path="/", ignore_case=false}`. */
export function grep(args: unknown, { vfs, search }: ToolContext): Promise<ToolResult> {
  return guard("grep", async () => {
    const a = argsObject("grep", args);
    const pattern = requiredString("grep", a, "pattern", { nonEmpty: true });
    const path = normalizePath(optionalString("grep", a, "path", "/"));
    const ignoreCase = optionalBool("grep", a, "ignore_case", false);
    // Only files whose trigram filter may hold the pattern's literal text are read;
    // the rest cannot match (vfs/grams.ts, search/literals.ts).
    const literals = requiredLiterals(pattern);
    const { files: entries, total } = await vfs.walkFiles(path, literals && gramQuery(literals));
    // Read and search in chunks that grow fourfold, stopping once the matches are
    // capped: a pattern that matches often reads the first files only. The first
    // chunk is small enough to be searched in the page when the worker is not
    // running yet (that search starts it, for the chunks after and the next grep;
    // starting it earlier only slowed the reading down on two cores).
    const lines: string[] = [];
    let capped = false;
    let next = 0;
    let budget = IN_PAGE_MAX_CHARS;
    do {
      const chunk: VfsStat[] = [];
      let size = 0;
      while (next < entries.length && (chunk.length === 0 || size + entries[next]!.size <= budget)) {
        size += entries[next]!.size;
        chunk.push(entries[next++]!);
      }
      budget *= 4;
      const files = (await vfs.readFiles(chunk)).map((f) => ({ path: f.path, key: `${f.version}:${f.mtime}`, content: f.content }));
      const req = { pattern, ignoreCase, files, maxMatches: GREP_MAX_MATCHES - lines.length, maxLineChars: GREP_MAX_LINE_CHARS };
      const found = await runSearch(search, "grep", req);
      lines.push(...found.lines);
      capped = found.capped;
    } while (!capped && next < entries.length);
    const n = total;
    if (lines.length === 0) return `No matches for /${pattern}/ in ${n} file${n === 1 ? "" : "s"} under ${path}`;
    if (capped) lines.push("", `[Stopped after ${GREP_MAX_MATCHES} matches; narrow the pattern or the path to see the rest.]`);
    return lines.join("\n");
  });
}
