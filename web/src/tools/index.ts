export type { JsonSchema, ToolContext, ToolDefinition, ToolHandler, ToolKind, ToolResult, ToolSpec } from "./types.js";
export { BUILTIN_TOOLS, ToolRegistry, type HostToolDefinition } from "./registry.js";
export { ls } from "./ls.js";
export { read, READ_DEFAULT_LIMIT, READ_MAX_LINE_CHARS } from "./read.js";
export { write } from "./write.js";
export { edit } from "./edit.js";
export { grep, GREP_MAX_MATCHES, GREP_MAX_LINE_CHARS } from "./grep.js";
export { find, FIND_MAX_RESULTS } from "./find.js";
export { globToRegExp } from "./glob.js";
