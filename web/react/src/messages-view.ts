// A session's messages as a chat shows them: each message with its text so far
// (the Live text while it streams) and its tool calls, each with the state of its
// remote tool call (RTC) in the words chat UIs use.

import { toolState, type Message, type OtherToolName, type Prompt, type Rtc, type ToolState, type ToolTypes, type WritingCall } from "@rtc-agent/web/headless";

/** Where a tool call stands (the SDK's `ToolState`: input-streaming, awaiting-approval, awaiting-input, running, done, denied, error). */
export type { ToolState };

/** What every tool part has, whatever its tool. */
interface ToolPartBase {
  /** The model's tool call id. */
  id: string;
  state: ToolState;
  /** Why it was denied or failed. */
  error?: string;
  /** The RTC behind the call (absent while `input-streaming`). */
  rtc?: Rtc;
  /** The open question about it, if any: answer it with usePrompts(). */
  prompt?: Prompt;
}

/** A tool call of any tool: its arguments and result as the model wrote and got them. */
export interface UntypedToolPart extends ToolPartBase {
  name: string;
  /** The arguments (while `input-streaming`, what the model wrote so far, partly read). */
  input: unknown;
  /** The result given to the model (when `done`). */
  output?: unknown;
}

/**
 * A tool call in a chat. With a tool map (`InferToolTypes<typeof tools>`, the
 * type argument of `useChat`), comparing `name` with a host tool's name
 * narrows `input` and `output` to that tool's types; built-in and MCP tools
 * stay `unknown`.
 */
export type ToolPart<TT extends ToolTypes = ToolTypes> = string extends keyof TT
  ? UntypedToolPart
  :
      | { [K in keyof TT & string]: ToolPartBase & { name: K; input: TT[K]["input"]; output?: TT[K]["output"] } }[keyof TT & string]
      | (UntypedToolPart & { name: OtherToolName });

export interface ChatMessage<TT extends ToolTypes = ToolTypes> {
  id: string;
  role: Message["role"];
  /** The text so far: the streamed text while `status` is `streaming`. */
  text: string;
  status: Message["status"];
  tools: ToolPart<TT>[];
  /** The stored message. */
  message: Message;
}

export { toolState };

export function chatMessages(messages: Message[], rtcs: Rtc[], prompts: Prompt[], textOf: (m: Message) => string): ChatMessage[] {
  const byCall = new Map<string, Rtc>();
  for (const r of rtcs) byCall.set(`${r.message_id}/${r.tool_call_id}`, r);
  const promptOf = new Map<string, Prompt>();
  // A call of a running script asks with the id `<rtc id>/call-<n>`: it belongs to the script's call.
  for (const p of prompts) if (!promptOf.has(p.rtc.id)) promptOf.set(p.rtc.id, p);
  return messages.map((m) => ({
    id: m.id,
    role: m.role,
    text: textOf(m),
    status: m.status,
    message: m,
    tools: (m.tool_calls ?? []).map((c) => {
      const rtc = byCall.get(`${m.id}/${c.id}`);
      const prompt = rtc ? promptOf.get(rtc.id) : undefined;
      const state = toolState(rtc, prompt);
      const part: UntypedToolPart = { id: c.id, name: c.name, input: c.arguments, state };
      if (rtc) part.rtc = rtc;
      if (prompt) part.prompt = prompt;
      if (state === "done") part.output = rtc?.output;
      if ((state === "denied" || state === "error") && rtc?.error) part.error = rtc.error;
      return part;
    }),
  }));
}

/**
 * The calls the model is writing as tool parts in state `input-streaming`: the
 * model's id once it said it (else the call's place), the tool once named, and
 * the arguments so far.
 */
export function writingParts(calls: readonly WritingCall[]): UntypedToolPart[] {
  return calls.map((c) => ({ id: c.toolCallId ?? `${c.turnId}/${c.step}/${c.index}`, name: c.name ?? "", input: c.args, state: "input-streaming" }));
}
