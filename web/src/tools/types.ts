import type { VirtualFS } from "../vfs/index.js";
import type { ScriptAuthorizer, ScriptRunner } from "../script/runner.js";
import type { SearchClient } from "./search/client.js";

/**
 * Outcome of one tool call, in the shape the SDK submits to the server
 * (`v1.rtc.submit_result`): `output` goes to the model as is; `error` is shown to
 * it as `[Tool Error] <error>`, so both are written for a model to read.
 */
/**
 * A tool's result. `value`, for a host tool whose result is not a string: the
 * result as JSON data, submitted as that value (`output` is its JSON text).
 */
export type ToolResult = { ok: true; output: string; value?: unknown } | { ok: false; error: string };

/**
 * How the work mode treats a tool (PROTOCOL.md, "Work modes"): `read` tools run
 * without asking, `write` and `script` may need confirmation, `ask` always
 * involves the user, `host` tools are the host site's own.
 */
export type ToolKind = "read" | "write" | "script" | "ask" | "host";

/** A JSON Schema (draft 2020-12 subset) describing a tool's arguments. */
export type JsonSchema = { [key: string]: unknown };

/**
 * How a host tool's calls are approved, as declared with `needsApproval`:
 * `always` (true), `never` (false) or decided from the `arguments` by the browser.
 * Absent: as the work mode says.
 */
export type ToolApproval = "always" | "never" | "arguments";

/** What the server offers the model for one tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
  kind: ToolKind;
  approval?: ToolApproval;
}

/** What a tool may use while it runs. */
export interface ToolContext {
  vfs: VirtualFS;
  /** The sandboxed script runner; without it the `script` tool reports an error. */
  script?: ScriptRunner;
  /** Checks each call a script makes through `rtcAgent` (set by the executor per call). */
  authorize?: ScriptAuthorizer;
  /**
   * `script run`: the SHA-256 of the saved code the person approved (null: they
   * were shown that none was saved). Set when the call was confirmed.
   */
  scriptSha256?: string | null;
  /** Runs grep and find off the page's main thread; without it they run in the page. */
  search?: SearchClient;
  /** The RTC being run (set by the executor). */
  rtcId?: string;
}

/** Runs one call. It must not throw: every failure becomes `{ok: false}`. */
export type ToolHandler = (args: unknown, ctx: ToolContext) => Promise<ToolResult>;

/**
 * A tool known to the registry. `execute` is absent for tools the UI handles
 * itself (`askUser`).
 */
export interface ToolDefinition extends ToolSpec {
  execute?: ToolHandler;
  /** Checks a call's arguments before anything else (host tools: their schema). */
  validate?: (args: unknown) => Promise<{ ok: true; value: unknown } | { ok: false; error: string }>;
  /** `needsApproval` given as a function: called with the validated arguments. */
  needsApproval?: (args: unknown) => Promise<boolean>;
}
