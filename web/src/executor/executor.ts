// Runs the RTCs of this device's sessions, in the one tab that leads (leader.ts).
//
// Per call: journal → (confirmation / askUser form) → journal "executing" →
// `update_status executing` → the tool → journal "finished" + outbox, one
// transaction → submission until acknowledged (outbox.ts). The read-only tools
// (kind "read": ls, read, grep, find) skip `update_status executing`: running one
// changes nothing, so it needs no claim on the server, and its RTC goes from
// pending straight to its result (one server write and one round trip fewer).
// After a reload, a call the journal says was started but has no outcome is
// reported as interrupted and never run again. Calls of one session run in order; tool bodies run one at a
// time across sessions, while a question to the person blocks only its session.
//
// Whether to ask: the server's `needs_confirmation`, or this page's own copy of the
// work-mode matrix (permissions.ts), whichever asks. A `script run` is shown with
// its saved code and runs only that code (pinned by SHA-256; asked again when it
// changed). Calls a running script makes go through the same matrix.

import { RTC_TERMINAL, RpcError, type Rtc, type RtcListResult, type RtcStatus } from "../protocol/types.js";
import type { EntityStore } from "../realtime/entities.js";
import type { Call } from "../realtime/topic.js";
import type { ToolContext, ToolDefinition } from "../tools/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import { Emitter, KeyedSignals, SerialQueue, backoffMs, sleep } from "../util/emitter.js";
import { INTERRUPTED, type Journal, type Outcome, type RtcRef } from "./journal.js";
import type { Leadership } from "./leader.js";
import { fitOutput, resultOutcome, type Outbox } from "./outbox.js";
import { formatAnswers, questionsOf, validateQuestions } from "./ask.js";
import { checkContent, ELICITATION, elicitationOf, elicitOutput } from "./elicit.js";
import type { Prompt, PromptAnswer, PromptBoard, PromptKind } from "./prompts.js";
import { allowableForChat, allowedForChat, decideCall, scriptCallAsk, type ScriptCallAsk } from "./permissions.js";
import { previewOfCall, type ScriptPreview } from "../script/pin.js";
import { argsObject } from "../tools/args.js";
import type { ScriptAuthorizer } from "../script/runner.js";

export interface ExecutorDeps {
  journal: Journal;
  outbox: Outbox;
  call: Call;
  store: EntityStore;
  deviceId: string;
  tabId: string;
  tools: ToolRegistry;
  context: () => ToolContext;
  prompts: PromptBoard;
  leadership: Leadership;
}

export interface ExecutorEvents {
  /** A tool body started in this tab. */
  started: Rtc;
  /** A call got its outcome (queued for submission). */
  finished: { rtc: Rtc; outcome: Outcome };
  /** A call found started-but-unfinished after a reload, reported as failed. */
  interrupted: Rtc;
  error: unknown;
}

/** The decision sent with `update_status executing`. */
type Approval = { scope: "once" | "session"; standing?: boolean };

const OPEN: ReadonlySet<RtcStatus> = new Set(["pending", "sent", "executing"]);

export class Executor {
  readonly events = new Emitter<ExecutorEvents>();
  private readonly inFlight = new Set<string>();
  private readonly sessionQueues = new Map<string, SerialQueue>();
  private readonly execQueue = new SerialQueue();
  /** Fired by RTC id when the call ends on the server. */
  private readonly ends = new KeyedSignals();
  /** Fired by session id when the chat moves to another device: its questions are withdrawn. */
  private readonly moves = new KeyedSignals();
  private readonly offs: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly d: ExecutorDeps) {}

  start(): void {
    this.offs.push(
      // A result kept in memory because storage is full: the person should free space.
      this.d.journal.events.on("unsaved", (err) => this.events.emit("error", err)),
      this.d.store.events.on("change", (c) => {
        if (c.kind === "session") {
          // Its RTCs may have arrived first (loaded with the session's lists).
          if (c.entity.device_id === this.d.deviceId) for (const r of this.d.store.rtcsOf(c.entity.id)) this.consider(r);
          // Continued on another device: its questions go there (this device can no longer answer them).
          else this.moves.fire(c.entity.id);
          return;
        }
        if (c.kind !== "rtc") return;
        if (RTC_TERMINAL.has(c.entity.status)) this.ended(c.entity.id);
        else if (this.mine(c.entity)) this.consider(c.entity);
      }),
      this.d.store.events.on("reset", () => void this.refresh()),
      this.d.leadership.events.on("change", (leader) => {
        if (leader) {
          this.d.outbox.start();
          void this.refresh();
        } else this.d.outbox.stop();
      }),
    );
    this.d.leadership.start();
  }

  stop(): void {
    this.stopped = true;
    for (const off of this.offs.splice(0)) off();
    this.d.outbox.stop();
    this.d.leadership.stop();
  }

  get isLeader(): boolean {
    return this.d.leadership.isLeader;
  }

  /**
   * Re-delivery after a (re)connect, a reload or a reset: resubmit the outbox and
   * take every open call of this device from `v1.rtc.pending`.
   */
  async refresh(): Promise<void> {
    if (!this.d.leadership.isLeader || this.stopped) return;
    this.d.outbox.kick(true);
    try {
      const res = await this.d.call("v1.rtc.pending", {});
      await this.d.store.merge(res.rtcs.map((r) => ({ kind: "rtc" as const, entity: r })));
      for (const r of res.rtcs) this.consider(r);
    } catch (err) {
      this.events.emit("error", err);
    }
  }

  private mine(r: Rtc): boolean {
    return this.d.store.sessions.get(r.session_id)?.device_id === this.d.deviceId;
  }

  private consider(r: Rtc): void {
    if (this.stopped || !this.d.leadership.isLeader || !OPEN.has(r.status) || this.inFlight.has(r.id)) return;
    this.inFlight.add(r.id);
    // A call a tool's view asked for runs beside the step's calls (the server
    // runs it): its question must not wait behind an askUser of the step.
    const key = r.executor === "server" && r.tool_call_id.startsWith("app:") ? `${r.session_id}\u0000views` : r.session_id;
    let q = this.sessionQueues.get(key);
    if (!q) this.sessionQueues.set(key, (q = new SerialQueue()));
    void q
      .run(() => this.process(r))
      .catch((err) => this.events.emit("error", err))
      .finally(() => this.inFlight.delete(r.id));
  }

  private current(r: Rtc): Rtc {
    const cur = this.d.store.rtcs.get(r.id);
    return cur && cur.offset > r.offset ? cur : r;
  }

  private async process(rtc: Rtc): Promise<void> {
    const ref: RtcRef = { id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name };
    if (rtc.executor === "server") return this.confirmServerCall(rtc, ref);
    const tab = this.d.tabId;
    const { journal, outbox } = await this.d.journal.get(rtc.id);
    if (outbox) return this.d.outbox.kick(true);
    if (journal && (journal.phase === "finished" || journal.phase === "acknowledged")) return;
    if (journal?.phase === "executing" || this.current(rtc).status === "executing") {
      // Started in an earlier life of this page (or another tab that died): the side
      // effects may have happened. Never run it again; tell the model. The server's
      // status counts even when the journal says less: a claim kept only in memory
      // (storage full) is gone after a reload.
      if (await this.finish(rtc, ref, { kind: "result", ok: false, error: INTERRUPTED })) this.events.emit("interrupted", rtc);
      return;
    }
    if (RTC_TERMINAL.has(this.current(rtc).status)) return;

    try {
      // Arguments over the server's limit arrive cut, as a JSON string with a note
      // (docs/protocol.md), and the server ends such a call failed itself. Should one
      // still arrive open, no tool (a host tool's handler included) sees a string
      // where it expects an object: the call fails without running.
      argsObject(rtc.tool_name, rtc.arguments);
    } catch (err) {
      return void (await this.finish(rtc, ref, { kind: "result", ok: false, error: (err as Error).message }));
    }
    const tool = this.d.tools.get(rtc.tool_name);
    let args: unknown = rtc.arguments;
    if (tool?.validate) {
      // A wrong argument fails the call before anyone is asked; the message names the field.
      const checked = await tool.validate(rtc.arguments);
      if (!checked.ok) return void (await this.finish(rtc, ref, { kind: "result", ok: false, error: fitOutput(checked.error) }));
      args = checked.value;
    }
    const asks: PromptKind | null = rtc.tool_name === "askUser" ? "ask" : rtc.tool_name === ELICITATION ? "elicit" : null;
    const need = asks ? { ask: false, standing: false, byTool: false } : await this.needsConfirmation(rtc, args);
    const kind: PromptKind | null = asks ?? (need.ask ? "confirm" : null);
    // An MCP server's question, read once: its form or link, or why it cannot be shown.
    const asked = kind === "elicit" ? elicitationOf(rtc.arguments) : null;
    // What the server records as the decision: a standing "Allow for this chat", or the person's answer below.
    let approval: Approval | undefined = need.standing ? { scope: "session", standing: true } : undefined;
    if (kind) {
      if (kind === "ask") {
        const problem = validateQuestions(rtc.arguments);
        if (problem) return void (await this.finish(rtc, ref, { kind: "result", ok: false, error: problem }));
      }
      if (typeof asked === "string") return void (await this.finish(rtc, ref, { kind: "result", ok: false, error: asked }));
      if (!(await this.d.journal.prompting(ref, tab))) return;
      void this.d.call("v1.rtc.update_status", { rtc_id: rtc.id, status: "sent", client_id: crypto.randomUUID() }).catch(() => undefined);
    }
    let again: string | undefined;
    for (;;) {
      let pin: string | null | undefined;
      if (kind) {
        let script: ScriptPreview | null = null;
        if (kind === "confirm" && rtc.tool_name === "script") {
          try {
            script = await previewOfCall(this.d.context().vfs, rtc.arguments);
          } catch (err) {
            return void (await this.finish(rtc, ref, { kind: "result", ok: false, error: `could not read the saved script to show it: ${(err as Error).message}` }));
          }
        }
        const allowForChat = kind === "confirm" && !script && allowableForChat(rtc.tool_name, tool?.kind, rtc.arguments);
        const shown = new Date();
        const questions = kind === "ask" ? questionsOf(rtc.arguments) : null;
        const elicitation = typeof asked === "object" ? asked : null;
        const answer = await this.promptFor(rtc, {
          id: rtc.id,
          kind,
          ...(script ? { script } : {}),
          ...(again ? { again } : {}),
          ...(allowForChat ? { allowForChat } : {}),
          ...(need.byTool ? { byTool: true } : {}),
          ...(questions ? { questions } : {}),
          ...(elicitation ? { elicitation } : {}),
        });
        if (!answer) return this.withdrawn(rtc, ref);
        if (kind === "ask" || kind === "elicit") {
          // The person's time answering is the call's execution (human time in the trace).
          const execution = { started_at: shown.toISOString(), ended_at: new Date().toISOString(), outcome: "ok" as const };
          const dismissed: Outcome = { kind: "reject", reason: `the user dismissed the questions without answering${answer.type === "dismiss" && answer.reason ? ` (${answer.reason})` : ""}` };
          let outcome: Outcome = dismissed;
          if (answer.type === "ask" && kind === "ask") outcome = { kind: "result", ok: true, output: formatAnswers(answer.answers), execution };
          if (answer.type === "elicit" && kind === "elicit") {
            // A form of the host's own UI may send what the schema refuses: asked again, with why.
            const problem = answer.action === "accept" && elicitation ? await checkContent(elicitation, answer.content ?? {}) : null;
            if (problem) {
              again = `The answer does not fit the form:\n${problem}`;
              continue;
            }
            outcome = { kind: "result", ok: true, output: elicitOutput(answer), execution };
          }
          return void (await this.finish(rtc, ref, outcome));
        }
        if (answer.type !== "confirm" || !answer.approved) {
          const denial = answer.type === "confirm" ? (answer.reason?.trim() ?? "") : "";
          const why = denial ? `: ${denial}` : "";
          return void (await this.finish(rtc, ref, { kind: "reject", reason: `the user declined this ${rtc.tool_name} call${why}`, denial }));
        }
        approval = { scope: answer.scope === "session" && allowForChat ? "session" : "once" };
        if (script) pin = script.sha256;
      }
      const ran = await this.execQueue.run(() => this.execute(rtc, ref, pin, approval));
      if (ran !== "changed") return;
      again = "The saved script changed after you were asked. This is the code that will run now.";
    }
  }

  /**
   * A call the server executes (a tool of an MCP server) never runs here. When it
   * needs confirmation the person is asked; an approval is sent with
   * `v1.rtc.approve` (retried while the server cannot be reached), a refusal as
   * `rejected` through the outbox.
   */
  private async confirmServerCall(rtc: Rtc, ref: RtcRef): Promise<void> {
    const cur = this.current(rtc);
    if (!cur.needs_confirmation || approvedByPerson(cur) || RTC_TERMINAL.has(cur.status)) return;
    const tab = this.d.tabId;
    const { journal, outbox } = await this.d.journal.get(rtc.id);
    if (outbox) return this.d.outbox.kick(true);
    if (journal && journal.phase !== "prompting") return;
    if (!(await this.d.journal.prompting(ref, tab))) return;
    // "Allow for this chat" covers every MCP tool (the server applies the same rule).
    const answer = await this.promptFor(rtc, { id: rtc.id, kind: "confirm", allowForChat: true });
    if (!answer) return this.withdrawn(rtc, ref);
    if (answer.type !== "confirm" || !answer.approved) {
      const why = answer.type === "confirm" && answer.reason ? `: ${answer.reason}` : "";
      return void (await this.finish(rtc, ref, { kind: "reject", reason: `the user declined this ${rtc.tool_name} call${why}` }));
    }
    const approval = { scope: answer.scope === "session" ? ("session" as const) : ("once" as const) };
    const clientId = crypto.randomUUID();
    for (let attempt = 0; !RTC_TERMINAL.has(this.current(rtc).status); attempt++) {
      try {
        await this.d.call("v1.rtc.approve", { rtc_id: rtc.id, client_id: clientId, approval });
        break;
      } catch (err) {
        if (err instanceof RpcError && !err.temporary && err.code !== "unauthenticated") break;
        await Promise.race([sleep(backoffMs(attempt)), this.terminal(rtc.id)]);
      }
    }
    await this.d.journal.close(ref, tab);
  }

  /**
   * The server's answer or this page's own matrix, whichever asks. A host tool's
   * `needsApproval` takes the place of the matrix's row for host tools, in every
   * mode that runs them: `false` never asks, `true` always asks (bypass too), a
   * function asks when it returns true (with the validated arguments).
   */
  private async needsConfirmation(rtc: Rtc, args: unknown): Promise<{ ask: boolean; standing: boolean; byTool: boolean }> {
    const tool = this.d.tools.get(rtc.tool_name);
    const chat = allowedForChat(this.d.store.sessions.get(rtc.session_id)?.approvals, rtc.tool_name, tool?.kind, rtc.arguments);
    const own = await hostRule(tool, args);
    const byTool = own === true;
    if (rtc.needs_confirmation) return { ask: true, standing: false, byTool };
    if (!tool) return { ask: false, standing: false, byTool }; // an unknown tool fails without running anything
    const d = decideCall(this.modeOf(rtc), tool.kind, rtc.arguments);
    // A call the matrix refuses (plan mode now) but the server sent: the person decides.
    if (d.refused) return { ask: true, standing: false, byTool };
    const ask = own ?? d.needsConfirmation;
    // "Allow for this chat" (stored on the session by the server) covers what would ask.
    if (ask && chat) return { ask: false, standing: true, byTool };
    return { ask, standing: false, byTool };
  }

  /**
   * A question closed without an answer: the call ended on the server, or its
   * chat moved to another device. An ended call is done with here; a moved one
   * keeps its claim open ("prompting"), so it is asked again if the chat comes
   * back.
   */
  private async withdrawn(rtc: Rtc, ref: RtcRef): Promise<void> {
    if (!this.mine(rtc) && !RTC_TERMINAL.has(this.current(rtc).status)) return;
    return this.d.journal.close(ref, this.d.tabId);
  }

  private modeOf(rtc: Rtc): string | undefined {
    return this.d.store.sessions.get(rtc.session_id)?.work_mode;
  }

  /**
   * Runs the call; "changed" (nothing run, nothing claimed) when it is a `script
   * run` whose saved code no longer has the approved hash.
   */
  private async execute(rtc: Rtc, ref: RtcRef, pin: string | null | undefined, approval?: Approval): Promise<"changed" | void> {
    if (this.stopped || !this.d.leadership.isLeader) return; // the next leader takes it
    if (pin !== undefined) {
      const now = await previewOfCall(this.d.context().vfs, rtc.arguments).catch(() => null);
      if ((now?.sha256 ?? null) !== pin) return "changed";
    }
    if (!(await this.d.journal.executing(ref, this.d.tabId))) return; // claimed elsewhere
    if (!(await this.mayRun(rtc, approval))) return this.d.journal.close(ref, this.d.tabId);
    this.events.emit("started", rtc);
    // The runner checks the hash again on the code it runs (a change after this point fails the call).
    const ctx = { ...this.d.context(), rtcId: rtc.id, authorize: this.authorizer(rtc), ...(pin !== undefined ? { scriptSha256: pin } : {}) };
    const started = new Date();
    const result = await this.d.tools.execute(rtc.tool_name, rtc.arguments, ctx);
    const execution = { started_at: started.toISOString(), ended_at: new Date().toISOString(), outcome: result.ok ? ("ok" as const) : ("error" as const) };
    await this.finish(rtc, ref, resultOutcome(result, execution));
  }

  /**
   * The check of calls a running script makes (host tools, changes of protected
   * paths): each asks where a direct call would, as its own prompt on the card of
   * the script's call.
   */
  private authorizer(rtc: Rtc): ScriptAuthorizer {
    let n = 0;
    const ask = (call: ScriptCallAsk) =>
      this.promptFor(rtc, { id: `${rtc.id}/call-${++n}`, kind: "confirm", call }).then((a) => {
        if (a?.type === "confirm" && a.approved) return null;
        const why = a?.type === "confirm" && a.reason ? `: ${a.reason}` : "";
        return `the user declined this call (${call.title})${why}`;
      });
    return (method, args) => {
      const tool = method === "call" ? this.d.tools.get(String(args[0])) : undefined;
      const chat = () => allowedForChat(this.d.store.sessions.get(rtc.session_id)?.approvals, tool!.name, tool!.kind, args[1]);
      if (tool?.kind === "host" && tool.approval !== undefined) {
        // The host's own rule, as for a direct call: it replaces the work mode's.
        const asked = async () => {
          const checked = tool.validate ? await tool.validate(args[1]) : { ok: true as const, value: args[1] };
          // Arguments the schema refuses cannot be judged by the rule: ask.
          const own = checked.ok ? await hostRule(tool, checked.value) : true;
          return own && !chat() ? ask({ tool: tool.name, args: args[1], title: `The script calls the host tool ${tool.name}`, byTool: true }) : null;
        };
        return asked();
      }
      const call = scriptCallAsk(this.modeOf(rtc), method, args);
      if (!call) return null;
      // A host tool allowed for this chat runs from a script without asking too.
      if (tool && chat()) return null;
      return ask(call);
    };
  }

  private async finish(rtc: Rtc, ref: RtcRef, outcome: Outcome): Promise<boolean> {
    const entry = await this.d.journal.finish(ref, this.d.tabId, outcome);
    if (!entry) return false;
    this.events.emit("finished", { rtc, outcome });
    this.d.outbox.kick();
    return true;
  }

  /**
   * Whether the call may run: false when it ended on the server (stopped, timed
   * out). A tool with effects first reports `update_status executing`, retried
   * while the server cannot be reached; a read-only one (kind "read") does not.
   */
  private async mayRun(rtc: Rtc, approval?: Approval): Promise<boolean> {
    const readOnly = this.d.tools.get(rtc.tool_name)?.kind === "read";
    const clientId = crypto.randomUUID();
    for (let attempt = 0; ; attempt++) {
      if (RTC_TERMINAL.has(this.current(rtc).status)) return false;
      if (readOnly) return true;
      try {
        await this.d.call("v1.rtc.update_status", { rtc_id: rtc.id, status: "executing", client_id: clientId, ...(approval ? { approval } : {}) });
        return true;
      } catch (err) {
        if (err instanceof RpcError && !err.temporary && err.code !== "unauthenticated") return false;
        await Promise.race([sleep(backoffMs(attempt)), this.terminal(rtc.id)]);
      }
    }
  }

  /**
   * Asks the person; null when the call ended on the server or its chat moved to
   * another device meanwhile (the question is withdrawn, not answered).
   */
  private async promptFor(rtc: Rtc, prompt: Omit<Prompt, "rtc">): Promise<PromptAnswer | null> {
    const ended = this.terminal(rtc.id).then(() => null);
    const away = this.moves.wait(rtc.session_id);
    const answer = this.d.prompts.ask({ ...prompt, rtc });
    const result = await Promise.race([answer, ended, away.done.then(() => null)]);
    away.cancel();
    if (result === null) this.d.prompts.close(prompt.id);
    return result;
  }

  /** Resolves when the store shows the RTC terminal. */
  private terminal(id: string): Promise<void> {
    const cur = this.d.store.rtcs.get(id);
    if (cur && RTC_TERMINAL.has(cur.status)) return Promise.resolve();
    return this.ends.wait(id).done;
  }

  private ended(id: string): void {
    for (const p of this.d.prompts.list()) if (p.rtc.id === id) this.d.prompts.close(p.id);
    this.ends.fire(id);
  }
}

/**
 * A host tool's own approval rule for a call: true (ask) or false (never ask)
 * when the tool declares `needsApproval`, undefined when the work mode decides.
 * It is a floor no work mode lowers: `true`, or a function that returns true,
 * asks in bypass too; a function that throws asks rather than runs.
 */
async function hostRule(tool: ToolDefinition | undefined, args: unknown): Promise<boolean | undefined> {
  if (tool?.kind !== "host" || tool.approval === undefined) return undefined;
  if (tool.approval === "never") return false;
  if (tool.approval === "always" || !tool.needsApproval) return true;
  try {
    return await tool.needsApproval(args);
  } catch {
    return true;
  }
}

/** The person allowed this very call when asked: its decision is an allow that is not a standing "Allow for this chat". */
function approvedByPerson(rtc: Rtc): boolean {
  return rtc.decision?.decision === "allow" && !rtc.decision.standing;
}
