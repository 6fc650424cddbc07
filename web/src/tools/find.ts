import { argsObject, guard, optionalString, requiredString } from "./args.js";
import { runSearch } from "./search/run.js";
import type { ToolContext, ToolResult, ToolSpec } from "./types.js";

/** Most paths returned by one find. */
export const FIND_MAX_RESULTS = 500;

export const findSpec: ToolSpec = {
  name: "find",
  kind: "read",
  description:
    "Find files and directories by glob pattern in the browser's virtual file system, searching `path` " +
    "recursively. `*` matches within one name, `?` one character, `**` any number of directories, " +
    "`[abc]`/`[a-z]`/`[!a]` one character of a set, `{md,txt}` alternatives. A pattern without '/' " +
    "is matched against each entry's name at any depth (like `find -name`); a pattern with '/' against the " +
    "path relative to `path` (e.g. `docs/**/*.md`), or the absolute path if it starts with '/'. " +
    `Returns absolute paths sorted, directories ending with '/', at most ${FIND_MAX_RESULTS}.`,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "Glob pattern, e.g. *.md, **/*.json, /notes/2024-??-*.txt" },
      path: { type: "string", default: "/", description: "Directory to search in. Defaults to the root '/'." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

/** `find {pattern, path="/"}`. */
export function find(args: unknown, { vfs, search }: ToolContext): Promise<ToolResult> {
  return guard("find", async () => {
    const a = argsObject("find", args);
    const pattern = requiredString("find", a, "pattern", { nonEmpty: true });
    const path = optionalString("find", a, "path", "/");
    const glob = pattern.startsWith("/") ? pattern : pattern.replace(/\/+$/, "");
    const root = await vfs.stat(path);
    const rootPrefix = root.path === "/" ? "/" : root.path + "/";
    const subject = pattern.startsWith("/")
      ? (p: string) => p
      : pattern.includes("/")
        ? (p: string) => (p.startsWith(rootPrefix) ? p.slice(rootPrefix.length) : p.slice(p.lastIndexOf("/") + 1))
        : (p: string) => p.slice(p.lastIndexOf("/") + 1);
    const entries = await vfs.walk(root.path);
    const { matches } = await runSearch(search, "find", { glob, subjects: entries.map((e) => subject(e.path)) });
    const total = matches.length;
    if (total === 0) return `No files or directories match ${JSON.stringify(pattern)} under ${root.path}`;
    const hits = matches.slice(0, FIND_MAX_RESULTS).map((i) => {
      const e = entries[i]!;
      return e.type === "dir" ? e.path + "/" : e.path;
    });
    if (total > hits.length) {
      hits.push("", `[Showing ${hits.length} of ${total} matches; use a more specific pattern or path to see the rest.]`);
    }
    return hits.join("\n");
  });
}
