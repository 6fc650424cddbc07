// The conversation of the selected session: user bubbles (with a fork action),
// assistant Markdown (streaming text from Live deltas), tool-call cards with
// their RTC state and, inline, the open prompts; compaction summaries as
// collapsed cards; failed or stopped turns with a Retry button. Nodes are keyed
// and rebuilt only when their content changes; open forms are reused so typing
// is never lost to a re-render. A tool call is keyed on its own: its change
// updates its card in place, and a message's calls added or removed re-arrange
// the message without touching the other cards, so an update costs what the
// changed call costs, not what the step's other calls cost.

import type { Agent } from "../agent/types.js";
import { toolState } from "../agent/toolstate.js";
import type { Prompt } from "../executor/prompts.js";
import { ELICITATION } from "../executor/elicit.js";
import { showInvisible } from "../vfs/path.js";
import type { Message, Rtc, ToolCall, Turn } from "../protocol/types.js";
import { AppViews } from "./appview.js";
import { callFromView, readFromView } from "./viewcall.js";
import { arrange, h, replaceChildren } from "./dom.js";
import { promptForm } from "./forms.js";
import { copyButton } from "./code.js";
import { MarkdownView } from "./mdview.js";
import { toolCard, toolKey, updateToolCard } from "./toolcard.js";

interface Rendered {
  /** What the message's own parts are built from (its calls are keyed apart). */
  key: string;
  node: HTMLElement;
  /** An assistant message's text: kept across rebuilds, updated as it streams. */
  body?: MarkdownView;
  /** An assistant message's tool calls by call id, and its parts around them. */
  calls?: Map<string, CallView>;
  head?: HTMLElement[];
  tail?: HTMLElement[];
  /** Shown as raw text after a render that threw: built anew when its key changes. */
  failed?: boolean;
}

/** One tool call of a message: its card and the questions its server asks, under it. */
interface CallView {
  key: string;
  card: HTMLElement;
  asks: HTMLElement[];
}

/** What the calls of one update are shown from. */
interface CallState {
  rtcs: Map<string, Rtc>;
  prompts: Map<string, Prompt>;
  /** Open questions of server calls (MCP elicitations) by the call's RTC id. */
  asks: Map<string, Prompt[]>;
  /** Questions of server calls that could not be shown, by the call's RTC id. */
  refused: Map<string, Rtc[]>;
}

/** Above this many tool calls, a message's cards out of view are skipped by layout (class `many`). */
const MANY_CALLS = 20;

export interface ChatActions {
  /** Shows another session (a fork's). */
  select: (sessionId: string) => void;
  /** Tells the person that something failed. */
  report: (message: string) => void;
}

export class ChatView {
  readonly root = h("div", { class: "messages", attrs: { role: "log", "aria-live": "polite" } });
  private sessionId: string | null = null;
  private readonly nodes = new Map<string, Rendered>();
  /** The views of MCP tools' calls (MCP Apps), kept while their session is shown. */
  private readonly apps: AppViews;
  private readonly forms = new Map<string, HTMLElement>();
  /** The note of each server's question that could not be shown, by its RTC id. */
  private readonly refusedNotes = new Map<string, HTMLElement>();
  /** Cards of the calls the model is writing, by turn, step and place. */
  private readonly writingCards = new Map<string, HTMLElement>();
  private readonly tail = h("div", { class: "thinking", attrs: { "aria-label": "The assistant is working" } });
  private readonly endLine = h("div", { class: "turn-end" });
  private endKey = "";
  private error: string | null = null;
  /** The user message being edited into a fork, and its form. */
  private forking: { id: string; form: HTMLElement } | null = null;
  /** Turns whose retry was asked for: the button stays disabled meanwhile. */
  private readonly retrying = new Set<string>();
  /** The RTCs of the shown session by message and call, rebuilt when the store's list changes. */
  private rtcList: readonly Rtc[] | null = null;
  private rtcMap = new Map<string, Rtc>();
  /** The log shows its end: new content scrolls it along (false once the person scrolls up). */
  private atEnd = true;
  /** Where the log was last scrolled to its end by this view (a scroll event from it is not the person's). */
  private endTop = -1;
  private scrolled = false;
  private scrollFrame: number | null = null;

  constructor(
    private readonly agent: Agent,
    private readonly actions: ChatActions = { select: () => undefined, report: () => undefined },
  ) {
    this.apps = new AppViews(
      agent.serverUrl,
      (sessionId, text) => agent.send(text, { sessionId }),
      (rtcId, tool, args, signal) => callFromView(agent, rtcId, tool, args, signal),
      (sessionId, rtcId, text) => agent.setViewContext(sessionId, rtcId, text),
      (rtcId, uri) => readFromView(agent, rtcId, uri),
    );
    // While the log follows its end, a scroll is only noted here (reading the
    // layout in every scroll event would force a layout per event); the next
    // frame tells the person's scroll from the log's own.
    this.root.addEventListener(
      "scroll",
      () => {
        if (this.atEnd) {
          this.scrolled = true;
          this.stickToEnd();
        } else this.atEnd = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 60;
      },
      { passive: true },
    );
  }

  /**
   * Keeps the log at its end when it was there: once per animation frame, after
   * the frame's changes, so layout is read once per frame, not once per update.
   */
  private stickToEnd(): void {
    if (!this.atEnd || this.scrollFrame !== null) return;
    this.scrollFrame = requestAnimationFrame(() => {
      this.scrollFrame = null;
      const el = this.root;
      // Scrolled up since the log last scrolled itself to the end: it stays where the person put it.
      if (this.scrolled && (this.endTop < 0 || el.scrollTop < this.endTop - 2)) this.atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
      this.scrolled = false;
      if (!this.atEnd) return;
      el.scrollTop = el.scrollHeight;
      this.endTop = el.scrollTop;
    });
  }

  show(sessionId: string | null): void {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.nodes.clear();
    this.apps.clear();
    this.forking = null;
    this.error = null;
    this.root.textContent = "";
    this.atEnd = true;
    this.endTop = -1;
    if (sessionId) {
      this.agent.loadSession(sessionId).then(
        () => this.update(),
        (err: Error) => {
          this.error = `Could not load this conversation: ${err.message}`;
          this.update();
        },
      );
    }
    this.update();
  }

  update(): void {
    const id = this.sessionId;
    if (!id) {
      replaceChildren(
        this.root,
        h(
          "div",
          { class: "empty" },
          h("h2", null, "How can I help?"),
          h("div", null, "The assistant thinks on the server; its tools run here, in your browser, on files that stay on this device."),
        ),
      );
      this.nodes.clear();
      return;
    }
    if (this.error) {
      replaceChildren(this.root, h("div", { class: "empty" }, this.error));
      return;
    }
    const messages = this.agent.store.messagesOf(id);
    const rtcs = this.rtcsByCall(id);
    // By RTC: a call's own prompt, or one for a call its running script makes (the first open one).
    const prompts = new Map<string, Prompt>();
    const open = new Set<string>();
    for (const p of this.agent.prompts()) {
      open.add(p.id);
      if (!prompts.has(p.rtc.id) || p.id === p.rtc.id) prompts.set(p.rtc.id, p);
    }
    for (const key of this.forms.keys()) if (!open.has(key)) this.forms.delete(key);
    const retry = this.retryable(id);
    const calls: CallState = { rtcs, prompts, asks: serverQuestions(prompts), refused: refusedQuestions(rtcs) };

    const wanted: HTMLElement[] = [];
    const seen = new Set<string>();
    for (const m of messages) {
      seen.add(m.id);
      const canRetry = retry?.id === m.turn_id && m.status === "error" ? retry : undefined;
      const key = `${this.keyOf(m)}|${canRetry ? `retry:${this.retrying.has(canRetry.id)}` : ""}|${this.forking?.id === m.id ? "fork" : ""}|${m.role === "summary" ? this.replacedBy(m) : ""}`;
      let r = this.nodes.get(m.id);
      try {
        if (!r || r.key !== key) {
          const body = r?.body ?? (m.role === "assistant" ? this.markdownView() : undefined);
          // The node is set below: the assistant's kept or new element, or a new one.
          const next: Rendered = { key, node: r?.node ?? this.root, body };
          if (m.role === "assistant" && body) this.assistant(m, calls, canRetry, body, r, next);
          else next.node = this.render(m);
          // A summary the person opened stays open when its node is rebuilt.
          if (r && next.node instanceof HTMLDetailsElement && r.node instanceof HTMLDetailsElement) next.node.open = r.node.open;
          r = next;
          this.nodes.set(m.id, r);
        } else if (r.calls) {
          this.syncCalls(m, calls, r);
        }
      } catch (err) {
        r = { key, node: this.failed(m, err), body: r?.body, failed: true };
        this.nodes.set(m.id, r);
      }
      if (r.body) this.syncBody(r.body, m);
      wanted.push(r.node);
    }
    for (const k of [...this.nodes.keys()]) if (!seen.has(k)) this.nodes.delete(k);
    if (messages.length === 0 && !this.agent.store.isHydrated(id)) wanted.push(h("div", { class: "empty" }, "Loading…"));
    // A stopped turn (or a failed one without its error message) has no message to
    // carry its Retry button: it gets a line of its own.
    if (retry && (retry.status === "stopped" || !messages.some((m) => m.turn_id === retry.id && m.status === "error"))) wanted.push(this.turnEnd(id, retry));
    const writing = this.writingCalls(id);
    wanted.push(...writing);
    const working = writing.length ? "" : this.workingText(id, messages);
    if (working) {
      this.tail.textContent = working;
      wanted.push(this.tail);
    }
    // Move nodes only where the order differs, so focus and selection survive.
    arrange(this.root, wanted);
    this.stickToEnd();
  }

  /**
   * Cards of the calls the model is writing (before their RTCs): the tool's
   * name and the arguments so far, or the host tool's own view of them in
   * state `input-streaming`. Each is updated in place as pieces come.
   */
  private writingCalls(sessionId: string): HTMLElement[] {
    const out: HTMLElement[] = [];
    const seen = new Set<string>();
    for (const w of this.agent.writingCalls(sessionId)) {
      const key = `${w.turnId}/${w.step}/${w.index}`;
      seen.add(key);
      const c: ToolCall = { id: w.toolCallId ?? key, name: w.name ?? "", arguments: w.args };
      const view = w.name ? this.agent.tools.view(w.name, { callId: c.id, state: "input-streaming", args: w.args as Record<string, unknown> | undefined }) : null;
      let card = this.writingCards.get(key);
      if (card) updateToolCard(card, c, undefined, null, view, true);
      else this.writingCards.set(key, (card = toolCard(c, undefined, null, view, true)));
      out.push(card);
    }
    for (const k of [...this.writingCards.keys()]) if (!seen.has(k)) this.writingCards.delete(k);
    return out;
  }

  private workingText(sessionId: string, messages: readonly Message[]): string {
    const s = this.agent.session(sessionId);
    const turn = s?.active_turn_id ? this.agent.store.turns.get(s.active_turn_id) : undefined;
    if (!turn) return s?.active_turn_id ? "Working" : "";
    if (turn.kind === "app") return ""; // the view's call shows in its card
    const last = messages[messages.length - 1];
    if (turn.status === "queued") return turn.kind === "compact" ? "Compaction queued" : "Queued";
    if (turn.status === "running" && !(last?.role !== "user" && last?.status === "streaming")) return turn.kind === "compact" ? "Summarising the conversation" : "Thinking";
    return "";
  }

  /**
   * The turn a Retry button is offered for: the session's latest turn, when it
   * failed with a retryable error or was stopped, nothing runs, the session is
   * open and this device owns it.
   */
  private retryable(sessionId: string): Turn | undefined {
    const s = this.agent.session(sessionId);
    if (!s || s.status !== "open" || s.active_turn_id || !this.agent.ownsSession(sessionId)) return undefined;
    // A view's calls' own turns leave the conversation as it was: the turn before them is the latest.
    const turns = this.agent.store.turnsOf(sessionId).filter((t) => t.kind !== "app");
    const last = turns.reduce<Turn | undefined>((a, t) => (!a || t.seq > a.seq ? t : a), undefined);
    if (!last) return undefined;
    if (last.status === "stopped") return last;
    if (last.status !== "failed") return undefined;
    const shown = this.agent.store.messagesOf(sessionId).find((m) => m.turn_id === last.id && m.status === "error");
    return (last.error?.retryable ?? shown?.error?.retryable) ? last : undefined;
  }

  private retryButton(turn: Turn): HTMLElement {
    const busy = this.retrying.has(turn.id);
    return h(
      "button",
      {
        class: "retry",
        props: { type: "button", disabled: busy },
        attrs: { "data-turn": turn.id },
        on: {
          click: () => {
            const sid = turn.session_id;
            this.retrying.add(turn.id);
            this.update();
            this.agent.retry(sid, turn.id).then(
              () => undefined,
              (err: Error) => {
                this.retrying.delete(turn.id);
                this.actions.report(`Retry failed: ${err.message}`);
                this.update();
              },
            );
          },
        },
      },
      busy ? "Retrying…" : "Retry",
    );
  }

  private turnEnd(sessionId: string, turn: Turn): HTMLElement {
    const key = `${sessionId}/${turn.id}/${turn.offset}/${this.retrying.has(turn.id)}`;
    if (key !== this.endKey) {
      this.endKey = key;
      const text = turn.status === "stopped" ? "This turn was stopped." : turn.error?.message || "This turn failed.";
      this.endLine.replaceChildren(h("span", null, text), this.retryButton(turn));
    }
    return this.endLine;
  }

  private rtcsByCall(sessionId: string): Map<string, Rtc> {
    const list = this.agent.store.rtcsOf(sessionId);
    if (list !== this.rtcList) {
      this.rtcList = list;
      this.rtcMap = new Map(list.map((r) => [`${r.message_id}/${r.tool_call_id}`, r]));
    }
    return this.rtcMap;
  }

  private markdownView(): MarkdownView {
    const view = new MarkdownView();
    // A spaced-out render grows the message between two updates of the log.
    view.onRender = () => this.stickToEnd();
    return view;
  }

  /** Shows an assistant message's current text (the Live text while it streams). */
  private syncBody(body: MarkdownView, m: Message): void {
    const text = this.agent.messageText(m);
    body.set(text, m.status === "streaming");
    // An error message's text is its error, shown once, in the note below.
    const hidden = !text || (m.status === "error" && text === m.error?.message);
    if (body.root.hidden !== hidden) body.root.hidden = hidden;
  }

  /** A message that could not be shown: its raw text and a notice, so later updates go on. */
  private failed(m: Message, err: unknown): HTMLElement {
    return h(
      "div",
      { class: `msg ${m.role === "user" ? "user" : "assistant"} render-failed`, attrs: { "data-id": m.id, "data-status": m.status } },
      h("div", { class: "note bad", attrs: { role: "alert" } }, `This message could not be displayed (${(err as Error)?.message ?? String(err)}); its text is shown as written.`),
      h("pre", null, this.agent.messageText(m)),
    );
  }

  private keyOf(m: Message): string {
    // An assistant message's text is not part of its key: its MarkdownView follows
    // the text by itself. A summary is rebuilt when its text changes. Tool calls
    // have keys of their own (syncCalls).
    return `${m.offset}:${m.status}:${m.role === "summary" ? this.agent.messageText(m).length : ""}`;
  }

  /** A user message (or the form forking it) or a summary, built anew. */
  private render(m: Message): HTMLElement {
    if (m.role === "user") return this.forking?.id === m.id ? this.forking.form : this.userMessage(m);
    return this.summary(m);
  }

  /**
   * An assistant message whose own parts changed (its status, its calls added or
   * removed): its element and the text in it are kept (a long answer is not
   * detached, restyled and laid out anew), the parts around its cards are built
   * again, and its cards are kept or updated by syncCalls.
   */
  private assistant(m: Message, calls: CallState, retry: Turn | undefined, body: MarkdownView, old: Rendered | undefined, r: Rendered): void {
    const keep = !!old && !old.failed && body.root.parentNode === old.node;
    if (!keep) r.node = h("div", { class: "msg assistant" });
    r.node.dataset.id = m.id;
    r.node.dataset.status = m.status;
    r.head = [body.root];
    if (m.status !== "streaming" && this.agent.messageText(m) && m.status !== "error") {
      r.head.push(h("div", { class: "actions-bar" }, copyButton(() => body.current, "Copy", "Copy this answer as Markdown")));
    }
    r.tail = [];
    if (m.status === "interrupted") r.tail.push(h("div", { class: "note" }, "Stopped before the answer was complete."));
    if (m.status === "error") {
      r.tail.push(h("div", { class: "note bad", attrs: { role: "alert" } }, m.error?.message || "The turn failed.", retry ? this.retryButton(retry) : null));
    }
    r.calls = keep ? old!.calls : undefined;
    this.syncCalls(m, calls, r, true);
  }

  /**
   * Shows the message's tool calls: a card whose key changed is updated in place,
   * a new call gets a card; the message's children are re-arranged only when
   * calls or their questions were added or removed (or when `rearrange`).
   */
  /** A host tool's own view of a call (its `render`), or an MCP tool's view (an MCP App), or null. */
  private hostView(c: ToolCall, rtc: Rtc | undefined, p: Prompt | undefined): Node | null {
    if (rtc?.app) return this.apps.view(rtc);
    return this.agent.tools.view(c.name, {
      callId: c.id,
      state: toolState(rtc, p),
      args: (rtc?.arguments ?? c.arguments) as Record<string, unknown> | undefined,
      ...(rtc?.output !== undefined ? { output: rtc.output } : {}),
      ...(rtc?.error ? { error: rtc.error } : {}),
    });
  }

  private syncCalls(m: Message, state: CallState, r: Rendered, rearrange = false): void {
    const prev = r.calls;
    const next = new Map<string, CallView>();
    let changed = rearrange || !prev;
    const els: HTMLElement[] = [];
    for (const [i, c] of (m.tool_calls ?? []).entries()) {
      const id = next.has(c.id) ? `${c.id}#${i}` : c.id;
      const rtc = state.rtcs.get(`${m.id}/${c.id}`);
      const p = rtc ? state.prompts.get(rtc.id) : undefined;
      const asks = rtc?.executor === "server" ? (state.asks.get(rtc.id) ?? []) : [];
      const refused = rtc?.executor === "server" ? (state.refused.get(rtc.id) ?? []) : [];
      let key = toolKey(c, rtc, p);
      for (const q of asks) key += `|ask:${q.id}`;
      for (const q of refused) key += `|refused:${q.id}`;
      let v = prev?.get(id);
      if (!v) {
        v = { key, card: toolCard(c, rtc, p ? this.formFor(p) : null, this.hostView(c, rtc, p)), asks: [...refused.map((q) => this.refusedNote(q)), ...asks.map((q) => this.formFor(q))] };
        changed = true;
      } else if (v.key !== key) {
        updateToolCard(v.card, c, rtc, p ? this.formFor(p) : null, this.hostView(c, rtc, p));
        const forms = [...refused.map((q) => this.refusedNote(q)), ...asks.map((q) => this.formFor(q))];
        const old = v.asks;
        if (forms.length !== old.length || forms.some((f, j) => f !== old[j])) changed = true;
        v = { key, card: v.card, asks: forms };
      }
      next.set(id, v);
      els.push(v.card, ...v.asks);
    }
    if (prev && prev.size !== next.size) changed = true;
    r.calls = next;
    r.node.classList.toggle("many", next.size > MANY_CALLS);
    if (changed) arrange(r.node, [...(r.head ?? []), ...els, ...(r.tail ?? [])]);
  }

  private userMessage(m: Message): HTMLElement {
    const fork = h(
      "button",
      {
        class: "ghost fork",
        title: "Start a new conversation from this message (you can edit it first)",
        attrs: { "aria-label": "Fork from this message" },
        on: { click: () => this.startFork(m) },
      },
      "Fork",
    );
    return h("div", { class: "msg user", attrs: { "data-id": m.id } }, h("div", { class: "text" }, m.text), fork);
  }

  /** A compaction summary: collapsed, the messages it stands for stay above it. */
  private summary(m: Message): HTMLElement {
    const text = this.agent.messageText(m);
    const view = new MarkdownView();
    view.set(text, m.status === "streaming");
    const body = view.root;
    const n = this.replacedBy(m);
    const span = n ? `the assistant now reads this instead of ${n} earlier message${n === 1 ? "" : "s"}` : "";
    const label = m.status === "streaming" ? "Summarising the earlier conversation…" : "Earlier conversation summarised";
    return h(
      "details",
      { class: "msg summary", attrs: { "data-id": m.id, "data-status": m.status } },
      h("summary", null, h("span", { class: "label" }, label), span ? h("span", { class: "meta" }, span) : null),
      text ? body : h("div", { class: "meta" }, "The summary is being written."),
      m.status === "interrupted" ? h("div", { class: "note" }, "The summary was stopped before it was complete.") : null,
      m.status === "error" ? h("div", { class: "note bad" }, m.error?.message || "The summary failed.") : null,
    );
  }

  /**
   * How many messages a summary stands in for (protocol: the turns before the
   * turn of message `summary_of_seq`, and that turn's messages up to it).
   */
  private replacedBy(summary: Message): number {
    const upTo = summary.summary_of_seq;
    if (!upTo) return 0;
    const messages = this.agent.store.messagesOf(summary.session_id);
    const last = messages.find((x) => x.seq === upTo);
    const turnSeq = (id: string) => this.agent.store.turns.get(id)?.seq;
    const lastTurn = last ? turnSeq(last.turn_id) : undefined;
    return messages.filter((x) => {
      if (x.id === summary.id) return false;
      const t = turnSeq(x.turn_id);
      if (lastTurn === undefined || t === undefined || !last) return x.seq <= upTo;
      return t < lastTurn || (x.turn_id === last.turn_id && x.seq <= upTo);
    }).length;
  }

  private startFork(m: Message): void {
    const input = h("textarea", { props: { value: m.text, rows: Math.min(8, m.text.split("\n").length + 1) }, attrs: { "aria-label": "Message for the new conversation" } });
    const cancel = () => {
      this.forking = null;
      this.update();
    };
    const submit = h("button", { class: "primary", props: { type: "submit" } }, "Fork");
    const form = h(
      "form",
      { class: "msg user forking", attrs: { "data-id": m.id, "aria-label": "Fork from this message" } },
      h("div", { class: "meta" }, "A new conversation starts from here with this message; this one stays as it is."),
      input,
      h("div", { class: "actions" }, h("button", { props: { type: "button" }, on: { click: cancel } }, "Cancel"), submit),
    );
    form.addEventListener("keydown", (e) => {
      if (e.key === "Escape") cancel();
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.target === input) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text || submit.disabled) return;
      submit.disabled = true;
      this.agent.fork(m.session_id, m.id, text === m.text.trim() ? undefined : text).then(
        (res) => {
          if (this.forking?.form === form) this.forking = null;
          this.actions.select(res.session_id);
        },
        (err: Error) => {
          submit.disabled = false;
          this.actions.report(`Fork failed: ${err.message}`);
        },
      );
    });
    this.forking = { id: m.id, form };
    this.update();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  /** The note that a server's question could not be shown, and why (the RTC's error). */
  private refusedNote(q: Rtc): HTMLElement {
    let n = this.refusedNotes.get(q.id);
    if (!n) {
      n = h("div", { class: "note bad elicit-refused", attrs: { role: "note", "data-rtc": q.id } }, showInvisible(q.error ?? "The server's question could not be shown."));
      this.refusedNotes.set(q.id, n);
    }
    return n;
  }

  private formFor(p: Prompt): HTMLElement {
    let f = this.forms.get(p.id);
    if (!f) {
      f = promptForm(p, (a) => this.agent.answer(p.id, a));
      this.forms.set(p.id, f);
    }
    return f;
  }
}

/**
 * The open questions of server calls, by the call's RTC id, in no message of
 * their own and shown under the call's card: the questions tools' servers ask
 * during calls (MCP elicitations), whose tool_call_id is `elicit:<the call's
 * RTC id>:<n>`, and the confirmations of the calls a call's view asks for,
 * `app:<the call's RTC id>:<the view's key>`.
 */
function serverQuestions(prompts: Map<string, Prompt>): Map<string, Prompt[]> {
  const out = new Map<string, Prompt[]>();
  for (const p of prompts.values()) {
    const id = p.rtc.tool_call_id;
    let rtcId: string;
    if (id.startsWith("elicit:")) rtcId = id.slice("elicit:".length, id.lastIndexOf(":"));
    else if (id.startsWith("app:") && id.indexOf(":", 4) > 4) rtcId = id.slice("app:".length, id.indexOf(":", 4));
    else continue;
    const list = out.get(rtcId);
    if (list) list.push(p);
    else out.set(rtcId, [p]);
  }
  return out;
}

/**
 * The questions of server calls that could not be shown (the server recorded
 * them failed, with why, and without their form or link), by the call's RTC id.
 */
function refusedQuestions(rtcs: Map<string, Rtc>): Map<string, Rtc[]> {
  const out = new Map<string, Rtc[]>();
  for (const r of rtcs.values()) {
    const id = r.tool_call_id;
    if (r.tool_name !== ELICITATION || r.status !== "failed" || !id.startsWith("elicit:")) continue;
    const a = r.arguments as { fields?: unknown; url?: unknown } | null;
    if (a?.fields || a?.url) continue; // shown, then ended with its call
    const rtcId = id.slice("elicit:".length, id.lastIndexOf(":"));
    const list = out.get(rtcId);
    if (list) list.push(r);
    else out.set(rtcId, [r]);
  }
  return out;
}
