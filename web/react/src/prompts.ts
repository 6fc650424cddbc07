// usePrompts: the open questions for the person (confirmations of tool calls and
// askUser forms) with the functions that answer them, for a UI of the host's own.
// Every tab of the same user and device sees them; the first answer wins.

import type { Prompt, PromptAnswer, ToolTypes } from "@rtc-agent/web/headless";
import { useMemo, useSyncExternalStore } from "react";
import { useAgentContext } from "./agent.js";
import { storeOf } from "./store.js";

const NONE: Prompt[] = [];

/** The fields of a confirmation's answer besides its verdict (a reason, and whatever the SDK adds). */
export type ConfirmExtras = Omit<Extract<PromptAnswer, { type: "confirm" }>, "type" | "approved">;
const noop = () => () => {};

export interface PromptsHandle<TT extends ToolTypes = ToolTypes> {
  /** Open prompts, oldest first: `kind` is `confirm` (allow a call), `ask` (an askUser form) or `elicit` (an MCP server's question); `rtc` typed by the tool map. */
  prompts: Prompt<TT>[];
  /** Any answer: `{type: "confirm", approved, reason?}`, `{type: "ask", answers}`, `{type: "elicit", action, content?}` or `{type: "dismiss"}`. */
  answer: (id: string, answer: PromptAnswer) => void;
  /** Allows the call; `extras` go into the answer as they are. */
  approve: (id: string, extras?: ConfirmExtras) => void;
  /** Declines the call; the model reads the reason. */
  deny: (id: string, reason?: string) => void;
}

/** The open prompts; `TT` (`InferToolTypes<typeof tools>`) types each one's call by its tool. */
export function usePrompts<TT extends ToolTypes = ToolTypes>(): PromptsHandle<TT> {
  const agent = useAgentContext();
  const cell = agent ? storeOf(agent).prompts : null;
  const prompts = useSyncExternalStore(cell ? cell.subscribe : noop, cell ? cell.get : () => NONE, () => NONE);
  const actions = useMemo(() => {
    const answer = (id: string, a: PromptAnswer) => {
      if (!agent) throw new Error("usePrompts: no agent yet");
      agent.answer(id, a);
    };
    return {
      answer,
      approve: (id: string, extras?: ConfirmExtras) => answer(id, { ...extras, type: "confirm", approved: true }),
      deny: (id: string, reason?: string) => answer(id, { type: "confirm", approved: false, ...(reason ? { reason } : {}) }),
    };
  }, [agent]);
  // The tool map is the host's word for the tools it registers (see Agent).
  return { prompts: prompts as unknown as Prompt<TT>[], ...actions };
}
