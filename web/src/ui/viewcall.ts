// A tool's view calls a tool of its own MCP server: the server makes the call
// an RTC of the view's turn (`v1.app.call`), run under the session's work mode
// and approvals, and the view gets its result once the RTC ended, through the
// chat's updates like every call. A refusal before the call was made (the
// turn ended, an unknown tool, another call still open) rejects with the
// server's message.

import { callIdempotent } from "../agent/agent.js";
import type { Agent } from "../agent/types.js";
import type { MethodName, MethodResult } from "../protocol/methods.js";
import { RTC_TERMINAL, type Rtc } from "../protocol/types.js";
import { endOf } from "./appview.js";
import type { ResourceResult, ToolResult } from "./appbridge.js";

export async function callFromView(agent: Agent, rtcId: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  // One key for the request and its retries: a lost answer does not make a second call.
  const params = { rtc_id: rtcId, tool, arguments: args, client_id: crypto.randomUUID() };
  const res = await callIdempotent<MethodResult<"v1.app.call">>(
    (method, p) => agent.call(method as MethodName, p as never) as never,
    "v1.app.call" satisfies MethodName,
    params,
  );
  const ended = await untilEnded(agent, res.rtc, signal);
  const end = endOf(ended);
  if (end && !("cancelled" in end)) return end;
  return { content: [{ type: "text", text: end ? `The call did not run: ${end.cancelled}` : "The call did not end." }], isError: true };
}

/** The RTC once it ended, as the chat's updates bring it; rejects when signal aborts first. */
function untilEnded(agent: Agent, first: Rtc, signal: AbortSignal): Promise<Rtc> {
  return new Promise((resolve, reject) => {
    const latest = (): Rtc => {
      const r = agent.store.rtcs.get(first.id);
      return r && r.offset >= first.offset ? r : first;
    };
    const done = (): boolean => {
      const r = latest();
      if (!RTC_TERMINAL.has(r.status)) return false;
      off();
      signal.removeEventListener("abort", aborted);
      resolve(r);
      return true;
    };
    const aborted = () => {
      off();
      reject(new Error("the view was closed"));
    };
    const off = agent.events.on("change", () => void done());
    if (signal.aborted) return aborted();
    signal.addEventListener("abort", aborted, { once: true });
    done();
  });
}

/** Reads a resource of the MCP server of call rtcId for its view (`v1.app.resource`); rejects with the server's refusal. */
export async function readFromView(agent: Agent, rtcId: string, uri: string): Promise<ResourceResult> {
  const res = await agent.call("v1.app.resource", { rtc_id: rtcId, uri });
  return {
    contents: res.contents.map((c) => ({ uri: c.uri, ...(c.mime_type ? { mimeType: c.mime_type } : {}), ...(c.blob !== undefined ? { blob: c.blob } : { text: c.text ?? "" }) })),
  };
}
