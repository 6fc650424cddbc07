// Questions for the person: confirmations of tool calls, askUser forms and the
// questions MCP servers ask during their calls (elicitations). The
// executing tab opens them; every tab of the same user and device shows them
// (through a BroadcastChannel), and the first answer from any tab wins. So the
// person can answer in the tab they are looking at, not only in the one that
// happens to execute.

import type { RtcOf, ToolTypes } from "../tools/typed.js";
import type { ScriptPreview } from "../script/pin.js";
import type { ScriptCallAsk } from "./permissions.js";
import { Emitter } from "../util/emitter.js";
import type { AskQuestion } from "./ask.js";
import type { ElicitAnswer, Elicitation } from "./elicit.js";

/** `confirm`: may a call run; `ask`: the model's askUser questions; `elicit`: an MCP server's question (a form or a link). */
export type PromptKind = "confirm" | "ask" | "elicit";

/** How far a yes reaches: this call, or every call of the tool in this chat. */
export type ApprovalScope = "once" | "session";

export interface Prompt<TT extends ToolTypes = ToolTypes> {
  /** The RTC id; `<RTC id>/call-<n>` for a call a running script makes. */
  id: string;
  kind: PromptKind;
  /** The call asked about, typed by the agent's tool map (`RtcOf`). */
  rtc: RtcOf<TT>;
  /** `script run`: the saved code the person approves, the only code that will run. */
  script?: ScriptPreview;
  /** A call made from inside the running script of `rtc`. */
  call?: ScriptCallAsk;
  /** Why the person is asked again about the same call. */
  again?: string;
  /** "Allow for this chat" may be offered: not for scripts, script calls or protected paths. */
  allowForChat?: boolean;
  /** The host tool's own `needsApproval` asks for this call (not only the work mode). */
  byTool?: boolean;
  /** An askUser prompt's questions, checked (kind "ask"). */
  questions?: AskQuestion[];
  /** An MCP server's question, checked (kind "elicit"): the form's fields or the link. */
  elicitation?: Elicitation;
}

/** One answered askUser question. */
export interface AskAnswer {
  question: string;
  /** Labels of the chosen options. */
  selected: string[];
  /** Free text typed as "Other". */
  other?: string;
}

export type PromptAnswer =
  | {
      type: "confirm";
      approved: boolean;
      /** A denial's reason, given to the model in the tool result. */
      reason?: string;
      /** `session`: "Allow for this chat" (the tool runs without asking until revoked). Default `once`. */
      scope?: ApprovalScope;
    }
  | { type: "ask"; answers: AskAnswer[] }
  /** An MCP server's question: accept (a form's content, checked against its schema; a link opened) or decline. */
  | ({ type: "elicit" } & ElicitAnswer)
  | { type: "dismiss"; reason?: string };

type Wire =
  | { t: "open"; prompt: Prompt }
  | { t: "close"; id: string }
  | { t: "answer"; id: string; answer: PromptAnswer }
  | { t: "hello" };

export class PromptBoard {
  readonly events = new Emitter<{ change: Prompt[] }>();
  private readonly open = new Map<string, Prompt>();
  /** Prompts this tab opened and waits on. */
  private readonly waiting = new Map<string, (a: PromptAnswer) => void>();
  private readonly channel: BroadcastChannel | null;

  constructor(channelName: string) {
    this.channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(channelName) : null;
    if (this.channel) {
      this.channel.onmessage = (e: MessageEvent<Wire>) => this.onWire(e.data);
      this.post({ t: "hello" });
    }
  }

  list(): Prompt[] {
    return [...this.open.values()];
  }

  get(id: string): Prompt | undefined {
    return this.open.get(id);
  }

  /** Opens a prompt (executing tab) and resolves with the first answer from any tab. */
  ask(prompt: Prompt): Promise<PromptAnswer> {
    return new Promise((resolve) => {
      this.waiting.set(prompt.id, resolve);
      this.open.set(prompt.id, prompt);
      this.post({ t: "open", prompt });
      this.changed();
    });
  }

  /** Answers a prompt from this tab. */
  answer(id: string, answer: PromptAnswer): void {
    if (!this.resolve(id, answer)) this.post({ t: "answer", id, answer });
  }

  /** Withdraws a prompt (the call ended on the server, or was answered). */
  close(id: string): void {
    const w = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.open.delete(id)) this.changed();
    this.post({ t: "close", id });
    w?.({ type: "dismiss", reason: "closed" });
  }

  dispose(): void {
    for (const id of [...this.waiting.keys()]) this.close(id);
    this.channel?.close();
    this.events.clear();
  }

  private resolve(id: string, answer: PromptAnswer): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.waiting.delete(id);
    this.open.delete(id);
    this.post({ t: "close", id });
    this.changed();
    w(answer);
    return true;
  }

  private onWire(m: Wire): void {
    if (!m || typeof m !== "object") return;
    switch (m.t) {
      case "open":
        this.open.set(m.prompt.id, m.prompt);
        this.changed();
        break;
      case "close":
        if (!this.waiting.has(m.id) && this.open.delete(m.id)) this.changed();
        break;
      case "answer":
        this.resolve(m.id, m.answer);
        break;
      case "hello":
        for (const id of this.waiting.keys()) {
          const p = this.open.get(id);
          if (p) this.post({ t: "open", prompt: p });
        }
        break;
    }
  }

  private post(m: Wire): void {
    try {
      this.channel?.postMessage(m);
    } catch {
      // a closed channel: nothing to tell
    }
  }

  private changed(): void {
    this.events.emit("change", this.list());
  }
}
