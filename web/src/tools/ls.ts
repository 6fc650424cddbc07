import type { VirtualFS } from "../vfs/index.js";
import { argsObject, guard, optionalString } from "./args.js";
import type { ToolResult, ToolSpec } from "./types.js";

/** Most entries listed; a directory with more says so and how to narrow down. */
export const LS_MAX_ENTRIES = 1000;

export const lsSpec: ToolSpec = {
  name: "ls",
  kind: "read",
  description:
    "List the entries of a directory in the browser's virtual file system, one per line, sorted by name. " +
    "Directories end with '/', files show their size in bytes. Listing a file shows that file alone.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Absolute directory path, e.g. /docs. Defaults to the root '/'.", default: "/" },
    },
    additionalProperties: false,
  },
};

/** `ls {path="/"}`. */
export function ls(args: unknown, vfs: VirtualFS): Promise<ToolResult> {
  return guard("ls", async () => {
    const a = argsObject("ls", args);
    const path = optionalString("ls", a, "path", "/");
    const st = await vfs.stat(path);
    if (st.type === "file") return `${st.name} (${st.size} bytes)`;
    const entries = await vfs.readdir(st.path);
    if (entries.length === 0) return `${st.path} is an empty directory`;
    const lines = entries.slice(0, LS_MAX_ENTRIES).map((e) => (e.type === "dir" ? `${e.name}/` : `${e.name} (${e.size} bytes)`));
    if (entries.length > LS_MAX_ENTRIES) {
      lines.push(`[${entries.length - LS_MAX_ENTRIES} more entries not shown; use find with a pattern to narrow down]`);
    }
    return lines.join("\n");
  });
}
