// Where a tool call stands, in the names the agent UIs of other SDKs use, mapped
// from the RTC's status and the open prompts in this one place. The React
// bindings and the element's UI read it from here.

import { ELICITATION } from "../executor/elicit.js";
import type { Prompt } from "../executor/prompts.js";
import type { Rtc } from "../protocol/types.js";

/**
 * Where a tool call stands:
 * - `input-streaming`: the model has named the call, its RTC is not here yet;
 * - `awaiting-approval`: the person is asked to allow it;
 * - `awaiting-input`: an askUser form, or an MCP server's question, waits for the person's answer;
 * - `running`: waiting for its turn or executing;
 * - `done`: completed, the RTC's `output` holds the result;
 * - `denied`: the person (or plan mode) declined it, the RTC's `error` says why
 *   (with the person's reason) and its `decision` who and when;
 * - `error`: it failed (a wrong argument included) or timed out, `error` says why.
 */
export type ToolState = "input-streaming" | "awaiting-approval" | "awaiting-input" | "running" | "done" | "denied" | "error";

/** The state of a call from its RTC and its open prompt (from `agent.prompts()`), if any. */
export function toolState(rtc: Rtc | undefined, prompt?: Prompt): ToolState {
  if (!rtc) return "input-streaming";
  if (prompt) return prompt.kind === "confirm" ? "awaiting-approval" : "awaiting-input";
  switch (rtc.status) {
    case "completed":
      return "done";
    case "rejected":
      return "denied";
    case "failed":
    case "timeout":
      return "error";
    case "executing":
      return "running";
    default:
      // queued, pending, sent: asked about once delivered to the executing tab.
      if (rtc.tool_name === "askUser" || rtc.tool_name === ELICITATION) return "awaiting-input";
      return rtc.needs_confirmation && rtc.status !== "queued" ? "awaiting-approval" : "running";
  }
}
