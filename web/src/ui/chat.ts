// The conversation of the selected session: user bubbles, assistant Markdown
// (streaming text from Live deltas), tool-call cards with their RTC state and,
// inline, the open prompts. Nodes are keyed and rebuilt only when their content
// changes; open forms are reused so typing is never lost to a re-render.

import type { Agent } from "../agent/agent.js";
import type { Prompt } from "../executor/prompts.js";
import type { Message, Rtc } from "../protocol/types.js";
import { h, replaceChildren } from "./dom.js";
import { promptForm } from "./forms.js";
import { renderMarkdown } from "./markdown.js";
import { toolCard, toolKey } from "./toolcard.js";

interface Rendered {
  key: string;
  node: HTMLElement;
}

export class ChatView {
  readonly root = h("div", { class: "messages", attrs: { role: "log", "aria-live": "polite" } });
  private sessionId: string | null = null;
  private readonly nodes = new Map<string, Rendered>();
  private readonly forms = new Map<string, HTMLElement>();
  private readonly tail = h("div", { class: "thinking", attrs: { "aria-label": "The assistant is working" } });
  private error: string | null = null;

  constructor(private readonly agent: Agent) {}

  show(sessionId: string | null): void {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.nodes.clear();
    this.error = null;
    this.root.textContent = "";
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
    const stick = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 60;
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
    const messages = this.agent.messages(id);
    const rtcs = new Map<string, Rtc>();
    for (const r of this.agent.rtcs(id)) rtcs.set(`${r.message_id}/${r.tool_call_id}`, r);
    const prompts = new Map<string, Prompt>();
    for (const p of this.agent.prompts()) prompts.set(p.id, p);
    for (const key of this.forms.keys()) if (!prompts.has(key)) this.forms.delete(key);

    const wanted: HTMLElement[] = [];
    const seen = new Set<string>();
    for (const m of messages) {
      seen.add(m.id);
      const key = this.keyOf(m, rtcs, prompts);
      let r = this.nodes.get(m.id);
      if (!r || r.key !== key) {
        r = { key, node: this.render(m, rtcs, prompts) };
        this.nodes.set(m.id, r);
      }
      wanted.push(r.node);
    }
    for (const k of [...this.nodes.keys()]) if (!seen.has(k)) this.nodes.delete(k);
    if (messages.length === 0 && !this.agent.store.isHydrated(id)) wanted.push(h("div", { class: "empty" }, "Loading…"));
    const working = this.workingText(id, messages);
    if (working) {
      this.tail.textContent = working;
      wanted.push(this.tail);
    }
    // Move nodes only where the order differs, so focus and selection survive.
    wanted.forEach((node, i) => {
      if (this.root.children[i] !== node) this.root.insertBefore(node, this.root.children[i] ?? null);
    });
    while (this.root.children.length > wanted.length) this.root.lastElementChild!.remove();
    if (stick) this.root.scrollTop = this.root.scrollHeight;
  }

  private workingText(sessionId: string, messages: Message[]): string {
    const s = this.agent.session(sessionId);
    const turn = s?.active_turn_id ? this.agent.store.turns.get(s.active_turn_id) : undefined;
    if (!turn) return s?.active_turn_id ? "Working" : "";
    const last = messages[messages.length - 1];
    if (turn.status === "queued") return "Queued";
    if (turn.status === "running" && !(last?.role === "assistant" && last.status === "streaming")) return "Thinking";
    return "";
  }

  private keyOf(m: Message, rtcs: Map<string, Rtc>, prompts: Map<string, Prompt>): string {
    let key = `${m.offset}:${m.status}:${this.agent.messageText(m).length}`;
    for (const c of m.tool_calls ?? []) {
      const r = rtcs.get(`${m.id}/${c.id}`);
      key += "|" + toolKey(c, r, r ? prompts.get(r.id) : undefined);
    }
    return key;
  }

  private render(m: Message, rtcs: Map<string, Rtc>, prompts: Map<string, Prompt>): HTMLElement {
    if (m.role === "user") return h("div", { class: "msg user", attrs: { "data-id": m.id } }, m.text);
    const text = this.agent.messageText(m);
    const body = h("div", { class: "md" });
    body.append(renderMarkdown(text));
    if (m.status === "streaming") body.classList.add("cursor");
    const node = h("div", { class: "msg assistant", attrs: { "data-id": m.id, "data-status": m.status } }, text ? body : null);
    for (const c of m.tool_calls ?? []) {
      const r = rtcs.get(`${m.id}/${c.id}`);
      const p = r ? prompts.get(r.id) : undefined;
      node.append(toolCard(c, r, p ? this.formFor(p) : null));
    }
    if (m.status === "interrupted") node.append(h("div", { class: "note" }, "Stopped before the answer was complete."));
    if (m.status === "error") node.append(h("div", { class: "note bad", attrs: { role: "alert" } }, m.error?.message || "The turn failed."));
    return node;
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
