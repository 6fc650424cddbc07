import type { VirtualFS } from "../vfs/index.js";
import { argsObject, guard, requiredString } from "./args.js";
import type { ToolResult, ToolSpec } from "./types.js";

export const writeSpec: ToolSpec = {
  name: "write",
  kind: "write",
  description:
    "Create a file, or replace the whole content of an existing one, in the browser's virtual file system. " +
    "Missing parent directories are created. To change part of a file, prefer `edit`." +
    " Writing /AGENT.md or anything under /.scripts/ (the site's instructions and the saved scripts) asks the user first in every work mode except bypass.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Absolute file path, e.g. /docs/notes.md." },
      content: { type: "string", description: "The complete new content of the file (UTF-8 text)." },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
};

/** `write {path, content}`. */
export function write(args: unknown, vfs: VirtualFS): Promise<ToolResult> {
  return guard("write", async () => {
    const a = argsObject("write", args);
    const path = requiredString("write", a, "path");
    const content = requiredString("write", a, "content");
    const r = await vfs.writeFile(path, content);
    return `Wrote ${r.bytes} bytes to ${r.path} (${r.created ? "new file" : "replaced the previous content"})`;
  });
}
