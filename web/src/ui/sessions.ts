// The session list: new, switch, rename (inline), delete (two clicks). Sessions of
// the user's other devices are listed read-only: only their own device runs them.

import type { Agent } from "../agent/types.js";
import type { Session } from "../protocol/types.js";
import { ago, h, replaceChildren } from "./dom.js";

export class SessionsView {
  readonly list = h("ul", { attrs: { "aria-label": "Conversations" } });
  readonly root: HTMLElement;
  private editing: string | null = null;
  private armed: string | null = null;
  private selected: string | null = null;
  private readonly items = new Map<string, { key: string; node: HTMLElement }>();

  constructor(
    private readonly agent: Agent,
    private readonly select: (id: string | null) => void,
    private readonly report: (message: string) => void,
  ) {
    this.root = h(
      "aside",
      { class: "sessions", attrs: { "aria-label": "Sessions" } },
      h("button", { class: "new primary", on: { click: () => this.select(null) } }, "+ New chat"),
      this.list,
    );
  }

  update(selected: string | null): void {
    this.selected = selected;
    // Keep an open rename field as it is while the person types in it.
    const focus = (this.root.getRootNode() as ShadowRoot | Document).activeElement;
    if (this.editing && focus && focus === this.list.querySelector("input")) return;
    // Items are keyed by what they show and rebuilt only when that changes: this
    // runs on every render, also while an answer streams.
    const sessions = this.agent.store.listSessions();
    const wanted: HTMLElement[] = [];
    const seen = new Set<string>();
    // Chats of the same title are told apart by when each started.
    const titles = new Map<string, number>();
    for (const s of sessions) titles.set(s.title, (titles.get(s.title) ?? 0) + 1);
    for (const s of sessions) {
      const mine = this.agent.ownsSession(s.id);
      const twin = (titles.get(s.title) ?? 0) > 1 ? `started ${started(s.created_at)}` : "";
      const meta = [ago(s.updated_at), twin, mine ? "" : "other device", s.status === "closed" ? "closed" : "", s.active_turn_id ? "working…" : ""].filter(Boolean).join(" · ");
      const key = `${s.title}|${meta}|${s.id === this.selected}|${mine}|${this.editing === s.id}|${this.armed === s.id}`;
      let r = this.items.get(s.id);
      if (!r || r.key !== key) {
        r = { key, node: this.item(s, mine, meta) };
        this.items.set(s.id, r);
      }
      seen.add(s.id);
      wanted.push(r.node);
    }
    for (const id of [...this.items.keys()]) if (!seen.has(id)) this.items.delete(id);
    if (wanted.length === 0) {
      replaceChildren(this.list, h("li", { class: "meta" }, "No conversations yet."));
      return;
    }
    wanted.forEach((node, i) => {
      if (this.list.children[i] !== node) this.list.insertBefore(node, this.list.children[i] ?? null);
    });
    while (this.list.children.length > wanted.length) this.list.lastElementChild!.remove();
  }

  private item(s: Session, mine: boolean, meta: string): HTMLElement {
    const active = s.id === this.selected;
    const li = h("li", {
      class: active ? "active" : "",
      attrs: { "data-id": s.id, "aria-current": active ? "true" : undefined, tabindex: 0 },
      on: {
        click: () => this.select(s.id),
        keydown: (e) => {
          if (e.key === "Enter" && e.target === li) this.select(s.id);
        },
      },
    });
    if (this.editing === s.id) {
      const input = h("input", { props: { type: "text", value: s.title }, attrs: { "aria-label": "Session title", maxlength: 200 } });
      const finish = (save: boolean) => {
        if (this.editing !== s.id) return;
        this.editing = null;
        const title = input.value.trim();
        if (save && title && title !== s.title) this.agent.renameSession(s.id, title).catch((e: Error) => this.report(`Rename failed: ${e.message}`));
        this.update(this.selected);
      };
      input.addEventListener("keydown", (e) => {
        e.stopPropagation();
        if (e.key === "Enter") finish(true);
        if (e.key === "Escape") finish(false);
      });
      input.addEventListener("blur", () => finish(true));
      input.addEventListener("click", (e) => e.stopPropagation());
      li.append(h("div", { class: "name" }, input));
      queueMicrotask(() => input.select());
      return li;
    }
    li.append(h("div", { class: "name" }, h("div", { title: s.title }, s.title), h("div", { class: "meta" }, meta)));
    if (mine) {
      li.append(
        h("button", { class: "ghost rename", title: "Rename", attrs: { "aria-label": `Rename ${s.title}` }, on: { click: (e) => this.startRename(e, s.id) } }, "✎"),
      );
    }
    const armed = this.armed === s.id;
    li.append(
      h(
        "button",
        {
          class: `ghost danger delete${armed ? " armed" : ""}`,
          title: armed ? "Click again to delete" : "Delete",
          attrs: { "aria-label": armed ? `Confirm deleting ${s.title}` : `Delete ${s.title}` },
          on: { click: (e) => this.delete(e, s) },
        },
        armed ? "Delete?" : "✕",
      ),
    );
    return li;
  }

  private startRename(e: Event, id: string): void {
    e.stopPropagation();
    this.editing = id;
    this.update(this.selected);
  }

  private delete(e: Event, s: Session): void {
    e.stopPropagation();
    if (this.armed !== s.id) {
      this.armed = s.id;
      this.update(this.selected);
      setTimeout(() => {
        if (this.armed === s.id) {
          this.armed = null;
          this.update(this.selected);
        }
      }, 4000);
      return;
    }
    this.armed = null;
    if (this.selected === s.id) this.select(null);
    this.agent.deleteSession(s.id).catch((err: Error) => this.report(`Delete failed: ${err.message}`));
  }
}

/** When a chat started, to the minute (seconds when it is today). */
function started(iso: string): string {
  const d = new Date(iso);
  const today = d.toDateString() === new Date().toDateString();
  return today ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : d.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
