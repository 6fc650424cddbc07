// The "Tool calls" panel: the open conversation's tool calls from its audit trail
// (`v1.audit.list`): when each was asked for, the tool, who allowed or refused it
// and how it ended. It reloads when shown, when another conversation opens and
// when a call of the shown one changes.

import type { Agent } from "../agent/types.js";
import type { AuditRecord } from "../protocol/types.js";
import { h, replaceChildren } from "./dom.js";

export class ToolCallsView {
  readonly root: HTMLElement;
  private readonly body = h("tbody");
  private readonly note = h("p", { class: "note" });
  private sessionId: string | null = null;
  private visible = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private loading = 0;
  private readonly off: () => void;

  constructor(private readonly agent: Agent) {
    const table = h(
      "table",
      { attrs: { "aria-label": "Tool calls of this conversation" } },
      h("thead", null, h("tr", null, h("th", null, "Time"), h("th", null, "Tool"), h("th", null, "Decision"), h("th", null, "Outcome"))),
      this.body,
    );
    this.root = h(
      "aside",
      { class: "toolcalls", attrs: { hidden: true, "aria-label": "Tool calls" } },
      h("div", { class: "tools" }, h("span", { class: "label" }, "Tool calls"), h("button", { class: "ghost", props: { type: "button" }, on: { click: () => void this.refresh() } }, "Refresh")),
      this.note,
      table,
    );
    this.off = agent.events.on("change", (c) => {
      if (this.visible && c.kind === "rtc" && c.entity.session_id === this.sessionId) this.soon();
    });
  }

  setVisible(v: boolean): void {
    this.visible = v;
    this.root.hidden = !v;
    if (v) void this.refresh();
  }

  /** Shows the calls of another conversation (null: none open). */
  setSession(id: string | null): void {
    if (id === this.sessionId) return;
    this.sessionId = id;
    if (this.visible) void this.refresh();
  }

  private soon(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), 300);
  }

  async refresh(): Promise<void> {
    const id = this.sessionId;
    const n = ++this.loading;
    if (!id) {
      replaceChildren(this.body);
      this.note.textContent = "Open a conversation to see its tool calls.";
      return;
    }
    try {
      const records: AuditRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await this.agent.call("v1.audit.list", { session_id: id, ...(cursor ? { cursor } : {}) });
        records.push(...page.records);
        cursor = page.next_cursor;
      } while (cursor && records.length < 1000);
      if (n !== this.loading) return; // a newer load is on its way
      this.note.textContent = records.length ? "" : "No tool calls in this conversation yet.";
      replaceChildren(this.body, ...records.map((a) => row(a, this.agent.deviceId)));
    } catch (err) {
      if (n === this.loading) this.note.textContent = `Could not load the tool calls: ${(err as Error).message}`;
    }
  }

  dispose(): void {
    this.off();
    if (this.timer) clearTimeout(this.timer);
  }
}

function row(a: AuditRecord, thisDevice: string): HTMLTableRowElement {
  const time = new Date(a.created_at);
  return h(
    "tr",
    { attrs: { "data-rtc": a.rtc_id, "data-status": a.status, "data-decision": a.decision.outcome ?? "" } },
    h("td", { title: a.created_at }, time.toLocaleTimeString()),
    h("td", { class: "tool" }, a.tool_name),
    h("td", { title: a.decision.reason ?? "" }, decisionText(a, thisDevice)),
    h("td", { title: a.error ?? "" }, a.status),
  );
}

/**
 * "allowed by you on this device", "allowed by you for this chat on another
 * device", "denied by plan mode", "timeout", "waiting". A device is named by
 * whether it is this one: its id means nothing to a person.
 */
export function decisionText(a: AuditRecord, thisDevice?: string): string {
  const d = a.decision;
  if (!d.outcome) return a.needs_confirmation ? "waiting" : "—";
  switch (d.by) {
    case "work_mode":
      return `${d.outcome} by ${a.work_mode} mode`;
    case "user": {
      const where = !d.device_id || thisDevice === undefined ? "" : d.device_id === thisDevice ? " on this device" : " on another device";
      return `${d.outcome} by you${d.scope === "session" ? " for this chat" : ""}${where}`;
    }
  }
  return d.outcome;
}
