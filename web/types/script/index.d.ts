export { ScriptRunner, DEFAULT_SCRIPT_MEMORY_LIMIT_BYTES, ScriptError, SCRIPTS_DIR, scriptPath, type RunOptions, type ScriptLogEntry, type ScriptOutcome, type ScriptRunnerOptions, } from "./runner.js";
export { SandboxError } from "./sandbox-frame.js";
export type { HostFunction } from "./host-api.js";
export { scriptTool } from "./tool.js";
