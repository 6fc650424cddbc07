// The chat application inside <rtc-agent>'s shadow root: header (usage of the
// session, connection state, work mode, close/reopen, files), session list,
// conversation, composer (messages and /commands), file explorer. Below 720 px of
// its own width the session list is a drawer, closed unless opened, and the
// header wraps onto a second line.

import { toolTitle } from "../executor/elicit.js";
import type { Agent } from "../agent/types.js";
import { WORK_MODES, type Session, type WorkMode } from "../protocol/types.js";
import type { ConnectionStatus } from "../realtime/connection.js";
import { ChatView } from "./chat.js";
import { parseCommand } from "./commands.js";
import { h } from "./dom.js";
import { FilesView } from "./files.js";
import { SessionsView } from "./sessions.js";
import { ToolCallsView } from "./toolcalls.js";
import { STYLES } from "./styles.js";
import { sessionUsage } from "./usage.js";
import { isStorageError, storageNotice } from "./storage.js";

const MODE_LABELS: Record<WorkMode, string> = {
  manual: "Manual: ask before changes",
  edit: "Edit: ask before scripts",
  plan: "Plan: read-only",
  bypass: "Bypass: never ask",
};
const STATE_TEXT = { connecting: "connecting…", connected: "connected", disconnected: "offline" } as const;
/** Below this width of the element the session list is a drawer. */
const NARROW_PX = 720;
/** When no animation frame came within this (a hidden tab), a timer renders instead. */
const HIDDEN_RENDER_MS = 100;
const PLACEHOLDER = "Message the assistant…  (Enter to send, /compact to summarise)";

/** The wiring of the views inside the shadow root. */
export class Ui {
  private agent: Agent | null = null;
  private chat: ChatView | null = null;
  private sessions: SessionsView | null = null;
  private files: FilesView | null = null;
  private toolCalls: ToolCallsView | null = null;
  private selected: string | null = null;
  private selectedKey = "";
  private timer: ReturnType<typeof setTimeout> | null = null;
  private frame: number | null = null;
  private readonly offs: (() => void)[] = [];
  private readonly bannerEl = h("div", { class: "banner", attrs: { hidden: true, role: "status" } });
  /** The prompt a "… is waiting for your answer" banner points to (null: the banner shows something else). */
  private promptNotice: string | null = null;
  private readonly conn = h("button", { class: "conn ghost", props: { type: "button", disabled: true }, attrs: { "data-state": "connecting", "aria-live": "polite" } }, "connecting…");
  /** Why the connection fails, when a person can do something about it (or should know). */
  private readonly connBanner = h("div", { class: "conn-banner", attrs: { hidden: true, role: "alert" } });
  private connTicker: ReturnType<typeof setInterval> | null = null;
  private readonly modeScope = h("span", { class: "scope" }, "New chats");
  private readonly mode = h("select", { class: "work-mode", attrs: { "aria-label": "Work mode for new conversations" } }, WORK_MODES.map((m) => h("option", { props: { value: m } }, MODE_LABELS[m])));
  private readonly modeLabel = h("label", { class: "mode" }, this.modeScope, this.mode);
  private narrow = false;
  private drawerOpen = false;
  private sidebarShown = true;
  private resize: ResizeObserver | null = null;
  private readonly input = h("textarea", { props: { rows: 1, placeholder: PLACEHOLDER }, attrs: { "aria-label": "Message" } });
  private readonly sendBtn = h("button", { class: "primary send", props: { type: "submit" } }, "Send");
  private readonly stopBtn = h("button", { class: "danger stop", props: { type: "button", hidden: true } }, "Stop");
  private readonly title = h("div", { class: "title" }, "Assistant");
  private readonly sessionsToggle = h("button", { class: "ghost sessions-toggle", title: "Conversations", props: { type: "button" }, attrs: { "aria-label": "Conversations", "aria-expanded": "true" } }, "☰");
  private readonly filesToggle = h("button", { class: "files-toggle", attrs: { "aria-pressed": "false" } }, "Files");
  private readonly toolCallsToggle = h("button", { class: "toolcalls-toggle", attrs: { "aria-pressed": "false", "aria-label": "Tool calls" } }, ...shortOnPhones("Tool calls", "Calls"));
  private readonly usage = h("span", { class: "usage", attrs: { hidden: true } });
  private readonly closeBtn = h("button", { class: "close-session", title: "Close this conversation: it takes no messages until it is reopened (a running turn stops)", props: { type: "button", hidden: true }, attrs: { "aria-label": "Close chat" } }, ...shortOnPhones("Close chat", "Close"));
  private readonly reopenBtn = h("button", { class: "primary reopen", props: { type: "button" } }, "Reopen");
  private readonly closedBar = h("div", { class: "closed-bar", attrs: { hidden: true, role: "status" } }, h("span", null, "This conversation is closed: it takes no messages until it is reopened."), this.reopenBtn);
  private readonly moveBtn = h("button", { class: "primary move-here", props: { type: "button" } }, "Continue here");
  /** Another device's conversation: shown read-only, with "Continue here". */
  private readonly otherText = h("span", null, OTHER_DEVICE_TEXT);
  private readonly otherBar = h("div", { class: "other-device", attrs: { hidden: true, role: "status" } }, this.otherText, this.moveBtn);
  /** Gives up a "Continue here" that waits for the other device's call. */
  private moveWait: AbortController | null = null;
  /** "Allowed in this chat: write ✕": the tools that run without asking in the open conversation. */
  private readonly approvalsBar = h("div", { class: "approvals", attrs: { hidden: true, role: "status", "aria-label": "Tools allowed in this chat" } });
  private approvalsKey = "";
  private readonly body = h("div", { class: "body" });
  private readonly main = h("main", { class: "chat" });
  private readonly app = h("div", { class: "app" });

  constructor(private readonly root: ShadowRoot) {
    const composer = h("form", { class: "composer" }, this.input, this.stopBtn, this.sendBtn);
    this.main.append(this.connBanner, this.bannerEl, this.approvalsBar, h("div", { class: "messages" }), this.closedBar, this.otherBar, composer);
    this.body.append(this.main);
    this.app.append(h("header", { class: "bar" }, this.sessionsToggle, this.title, this.usage, this.conn, this.modeLabel, this.closeBtn, this.toolCallsToggle, this.filesToggle), this.body);
    root.replaceChildren(...styleNodes(root), this.app);
    this.conn.addEventListener("click", () => this.agent?.reconnectNow());
    // The element's own width decides, not the window's: it may sit in a narrow column.
    if (typeof ResizeObserver === "function") {
      this.resize = new ResizeObserver((entries) => this.setNarrow((entries[0]?.contentRect.width ?? NARROW_PX) < NARROW_PX));
      this.resize.observe(this.app);
    }
    // A tap on the conversation closes the open drawer.
    this.main.addEventListener("pointerdown", () => {
      if (this.narrow && this.drawerOpen) this.setDrawer(false);
    });
    composer.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.send();
      }
    });
    this.input.addEventListener("input", () => this.autosize());
    this.sendBtn.disabled = true;
  }

  attach(agent: Agent, title: string): void {
    this.agent = agent;
    this.title.textContent = title;
    this.chat = new ChatView(agent, { select: (id) => this.select(id), report: (m) => this.banner(m, true) });
    this.sessions = new SessionsView(agent, (id) => this.select(id), (m) => this.banner(m, true));
    this.files = new FilesView(agent.vfs);
    this.main.querySelector(".messages")!.replaceWith(this.chat.root);
    this.body.prepend(this.sessions.root);
    this.body.append(this.files.root);
    this.toolCalls = new ToolCallsView(agent);
    this.body.append(this.toolCalls.root);
    this.toolCallsToggle.addEventListener("click", () => {
      const show = this.toolCalls!.root.hidden !== false;
      this.toolCalls!.setVisible(show);
      this.toolCallsToggle.setAttribute("aria-pressed", String(show));
    });
    this.sessionsToggle.addEventListener("click", () => this.setDrawer(this.narrow ? !this.drawerOpen : !this.sidebarShown));
    this.layoutSessions();
    this.filesToggle.addEventListener("click", () => this.showFiles(this.files!.root.hidden !== false));
    this.stopBtn.addEventListener("click", () => {
      if (this.selected) agent.stop(this.selected).catch((e: Error) => this.banner(`Stop failed: ${e.message}`, true));
    });
    this.mode.addEventListener("change", () => this.changeMode(this.mode.value as WorkMode));
    this.closeBtn.addEventListener("click", () => this.setClosed(true));
    this.reopenBtn.addEventListener("click", () => this.setClosed(false));
    this.moveBtn.addEventListener("click", () => this.moveHere());
    const key = `rtc-agent:selected:${agent.userId}`;
    const saved = safeGet(key);
    const storedMode = safeGet("rtc-agent:work-mode") as WorkMode | null;
    if (storedMode && agent.modes.includes(storedMode)) agent.defaultWorkMode = storedMode;
    // Only the modes the site offers (a chat still in another shows it until it is moved).
    for (const o of Array.from(this.mode.options)) o.hidden = o.disabled = !agent.modes.includes(o.value as WorkMode);
    const ev = agent.events;
    const render = () => this.schedule();
    this.offs.push(
      ev.on("change", render),
      ev.on("text", (t) => t.sessionId === this.selected && render()),
      ev.on("writing", (w) => w.sessionId === this.selected && render()),
      ev.on("prompts", render),
      ev.on("hydrated", render),
      ev.on("reset", () => {
        if (this.selected) void agent.loadSession(this.selected).catch(() => undefined);
        render();
      }),
      ev.on("state", () => render()),
      ev.on("status", (s) => this.showStatus(s)),
      ev.on("relogin", (r) => this.banner(`Signed out (${r.reason}). Log in again to continue.`, true)),
      ev.on("error", (e) => this.failed(e)),
    );
    this.showStatus(agent.connectionStatus);
    this.select(saved && agent.session(saved) ? saved : null);
    this.sendBtn.disabled = false;
    // The stored selection may be a session that arrives with the first sync.
    if (saved && !agent.session(saved)) {
      const off = ev.on("change", (c) => {
        if (c.kind === "session" && c.entity.id === saved && !this.selected && !c.entity.deleted) this.select(saved);
      });
      setTimeout(off, 10_000);
    }
    this.selectedKey = key;
  }

  prefill(text: string, opts: { send?: boolean; newSession?: boolean }): void {
    if (opts.newSession) this.select(null);
    this.input.value = text;
    this.autosize();
    if (opts.send) void this.send();
    else this.input.focus();
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    this.files?.dispose();
    this.toolCalls?.dispose();
    this.resize?.disconnect();
    if (this.timer) clearTimeout(this.timer);
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    if (this.connTicker) clearInterval(this.connTicker);
  }

  banner(text: string, bad = false): void {
    this.promptNotice = null;
    delete this.bannerEl.dataset.kind;
    this.bannerEl.textContent = text;
    this.bannerEl.hidden = !text;
    this.bannerEl.classList.toggle("bad", bad);
  }

  /**
   * An error of the agent (the executor's included). A failed storage write gets a
   * banner saying what to free; errors the SDK retries by itself (network, a
   * refill) are only logged.
   */
  private failed(err: unknown): void {
    if (!isStorageError(err)) return void console.warn("rtc-agent:", err);
    if (this.bannerEl.dataset.kind === "storage" && !this.bannerEl.hidden) return;
    this.promptNotice = null;
    this.bannerEl.hidden = false;
    this.bannerEl.classList.add("bad");
    this.bannerEl.dataset.kind = "storage";
    this.bannerEl.replaceChildren(...storageNotice(err, () => this.showFiles(true)));
  }

  private showFiles(show: boolean): void {
    this.files!.setVisible(show);
    this.filesToggle.setAttribute("aria-pressed", String(show));
  }

  private select(id: string | null): void {
    if (id !== this.selected) this.moveWait?.abort(); // a wait to continue the chat left behind
    this.selected = id;
    if (this.narrow && this.drawerOpen) this.setDrawer(false);
    if (this.selectedKey) safeSet(this.selectedKey, id);
    this.chat?.show(id);
    this.toolCalls?.setSession(id);
    this.render();
    if (!id) this.input.focus();
  }

  /**
   * Renders once before the next frame, however many changes (deltas) arrive
   * until then. A hidden tab gets no animation frames: the timer renders there,
   * so its view is current when it is shown again.
   */
  private schedule(): void {
    if (this.timer) return;
    const run = () => {
      if (this.frame !== null) cancelAnimationFrame(this.frame);
      if (this.timer) clearTimeout(this.timer);
      this.frame = null;
      this.timer = null;
      this.render();
    };
    this.frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame(run) : null;
    this.timer = setTimeout(run, this.frame === null ? 16 : HIDDEN_RENDER_MS);
  }

  private render(): void {
    const agent = this.agent;
    if (!agent) return;
    let s = this.selected ? agent.session(this.selected) : undefined;
    if (this.selected && !s && agent.store.sessions.get(this.selected)?.deleted) {
      this.select(null);
      s = undefined;
    }
    this.sessions?.update(this.selected);
    this.chat?.update();
    this.mode.value = s ? s.work_mode : agent.defaultWorkMode;
    // Which the select changes: the open conversation's mode, or the one new chats start in.
    this.modeScope.textContent = s ? "This chat" : "New chats";
    this.mode.setAttribute("aria-label", s ? "Work mode of this conversation" : "Work mode for new conversations");
    this.modeLabel.title = s ? "Changes the work mode of the open conversation only" : "The work mode new conversations start in";
    const mine = !s || agent.ownsSession(s.id);
    const closed = s?.status === "closed";
    this.input.disabled = !mine || closed;
    this.sendBtn.disabled = !mine || closed;
    this.mode.disabled = !mine;
    this.input.placeholder = !mine ? "Read-only on this device" : closed ? "This conversation is closed." : PLACEHOLDER;
    this.stopBtn.hidden = !(s?.active_turn_id && mine);
    this.closeBtn.hidden = !(s && mine && !closed);
    this.closedBar.hidden = !(s && mine && closed);
    this.otherBar.hidden = !(s && !mine);
    const usage = sessionUsage(s);
    this.usage.hidden = !usage;
    this.usage.textContent = usage?.text ?? "";
    this.usage.title = usage?.title ?? "";
    this.promptBanner(agent);
    this.renderApprovals(agent, s);
  }

  /** The open conversation's "Allow for this chat" tools, each with a button that takes it back. */
  private renderApprovals(agent: Agent, s: Session | undefined): void {
    const list = s?.approvals ?? [];
    const key = s ? `${s.id}:${list.map((a) => a.tool).join(",")}` : "";
    if (key === this.approvalsKey) return;
    this.approvalsKey = key;
    this.approvalsBar.hidden = list.length === 0;
    this.approvalsBar.replaceChildren(
      h("span", { class: "label" }, "Allowed in this chat:"),
      ...list.map((a) =>
        h(
          "span",
          { class: "approval", attrs: { "data-tool": a.tool } },
          h("span", { class: "tool-name" }, toolTitle(a.tool)),
          h(
            "button",
            {
              class: "ghost revoke",
              title: `Ask again before each ${toolTitle(a.tool)} call`,
              props: { type: "button" },
              attrs: { "aria-label": `Revoke ${a.tool}` },
              on: {
                click: (e: Event) => {
                  (e.currentTarget as HTMLButtonElement).disabled = true;
                  agent.revokeApproval(s!.id, a.tool).catch((err: unknown) => this.banner(`Could not revoke ${a.tool}: ${(err as Error).message}`, true));
                },
              },
            },
            "✕",
          ),
        ),
      ),
    );
  }

  /** "… is waiting for your answer" while a prompt of another conversation is open, and only then. */
  private promptBanner(agent: Agent): void {
    const p = agent.prompts().find((x) => x.rtc.session_id !== this.selected);
    if (!p) {
      // Answered (here or in another tab), or its conversation is the one shown now.
      if (this.promptNotice !== null) this.banner("");
      return;
    }
    if (this.promptNotice === p.id || (!this.bannerEl.hidden && this.promptNotice === null)) return;
    this.promptNotice = p.id;
    delete this.bannerEl.dataset.kind;
    this.bannerEl.hidden = false;
    this.bannerEl.classList.remove("bad");
    this.bannerEl.replaceChildren(
      `“${agent.session(p.rtc.session_id)?.title ?? "Another conversation"}” is waiting for your answer.`,
      h("button", { on: { click: () => (this.banner(""), this.select(p.rtc.session_id)) } }, "Show"),
    );
  }

  /** The header's connection state ("Offline, retrying in 4 s") and the banner naming the cause. */
  private showStatus(st: ConnectionStatus): void {
    const retrying = st.state === "disconnected" && st.retryAt !== undefined;
    this.conn.dataset.state = st.state;
    this.conn.disabled = !retrying;
    this.conn.title = retrying ? "Try to connect now" : "";
    const paint = () => {
      if (!retrying) return void (this.conn.textContent = STATE_TEXT[st.state]);
      this.conn.textContent = `Offline, retrying in ${Math.max(0, Math.ceil((st.retryAt! - Date.now()) / 1000))} s`;
    };
    paint();
    if (this.connTicker) clearInterval(this.connTicker);
    this.connTicker = retrying ? setInterval(paint, 250) : null;
    const cause = problemText(st);
    this.connBanner.hidden = !cause;
    this.connBanner.textContent = cause;
    this.connBanner.dataset.kind = st.problem?.kind ?? "";
  }

  private setNarrow(narrow: boolean): void {
    if (narrow === this.narrow) return;
    this.narrow = narrow;
    this.drawerOpen = false;
    this.app.classList.toggle("narrow", narrow);
    this.layoutSessions();
  }

  /** Opens or closes the session list: the drawer when narrow, the sidebar otherwise. */
  private setDrawer(open: boolean): void {
    if (this.narrow) this.drawerOpen = open;
    else this.sidebarShown = open;
    this.layoutSessions();
  }

  private layoutSessions(): void {
    const shown = this.narrow ? this.drawerOpen : this.sidebarShown;
    if (this.sessions) this.sessions.root.hidden = !shown;
    this.sessionsToggle.setAttribute("aria-expanded", String(shown));
  }

  private async send(): Promise<void> {
    const agent = this.agent;
    const text = this.input.value.trim();
    if (!agent || !text || this.sendBtn.disabled) return;
    const command = parseCommand(text);
    if (command) return this.compact(command.instruction);
    this.sendBtn.disabled = true;
    try {
      const res = await agent.send(text, this.selected ? { sessionId: this.selected } : { workMode: agent.defaultWorkMode });
      this.input.value = "";
      this.autosize();
      if (this.selected !== res.session_id) this.select(res.session_id);
      this.banner("");
    } catch (err) {
      this.banner(`Not sent: ${(err as Error).message}`, true);
    } finally {
      this.sendBtn.disabled = false;
      this.render();
    }
  }

  /** `/compact [instruction]`: a summary of the selected conversation. */
  private async compact(instruction: string | undefined): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    if (!this.selected) {
      this.banner("Nothing to compact yet: /compact summarises the open conversation.", true);
      return;
    }
    this.sendBtn.disabled = true;
    try {
      await agent.compact(this.selected, instruction);
      this.input.value = "";
      this.autosize();
      this.banner("");
    } catch (err) {
      this.banner(`Not compacted: ${(err as Error).message}`, true);
    } finally {
      this.sendBtn.disabled = false;
      this.render();
    }
  }

  private setClosed(closed: boolean): void {
    const agent = this.agent;
    const id = this.selected;
    if (!agent || !id) return;
    const btn = closed ? this.closeBtn : this.reopenBtn;
    btn.disabled = true;
    (closed ? agent.closeSession(id) : agent.openSession(id))
      .then(
        () => this.banner(""),
        (e: Error) => this.banner(`${closed ? "Close" : "Reopen"} failed: ${e.message}`, true),
      )
      .finally(() => {
        btn.disabled = false;
        this.render();
      });
  }

  /**
   * "Continue here": this device takes the open conversation over, once no call
   * runs on the other device (the bar says it waits; opening another chat gives
   * up).
   */
  private moveHere(): void {
    const agent = this.agent;
    const id = this.selected;
    if (!agent || !id) return;
    this.moveBtn.disabled = true;
    const wait = (this.moveWait = new AbortController());
    agent
      .moveSessionHere(id, {
        signal: wait.signal,
        onWait: () => (this.otherText.textContent = "A tool call is running on the other device: this chat continues here as soon as it ends."),
      })
      .then(
        () => this.banner(""),
        (e: Error) => {
          if (!wait.signal.aborted) this.banner(`Not moved: ${e.message}`, true);
        },
      )
      .finally(() => {
        if (this.moveWait === wait) this.moveWait = null;
        this.otherText.textContent = OTHER_DEVICE_TEXT;
        this.moveBtn.disabled = false;
        this.render();
      });
  }

  private changeMode(mode: WorkMode): void {
    const agent = this.agent;
    if (!agent) return;
    if (this.selected) agent.setWorkMode(this.selected, mode).catch((e: Error) => this.banner(`Mode not changed: ${e.message}`, true));
    else {
      agent.defaultWorkMode = mode;
      safeSet("rtc-agent:work-mode", mode);
    }
  }

  private autosize(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(160, this.input.scrollHeight + 2)}px`;
  }
}

/** What the connection banner says, or "" when there is nothing a person needs to know. */
function problemText(st: ConnectionStatus): string {
  const p = st.problem;
  if (!p || st.state === "connected") return "";
  switch (p.kind) {
    case "origin":
      return `The assistant's server does not accept connections from this page (${location.origin}): ${p.message}. The site's operator must allow this origin.`;
    case "token":
      return `Could not get a sign-in token for the assistant (${p.message}). Retrying.`;
    case "token-rejected":
      return `The assistant's server rejected the sign-in token (${p.message}). Retrying with a new one.`;
    case "connect-data":
      return `The assistant's server refused this page's connection data (${p.message}). The site's operator must fix how the page sets up the assistant (its device id); retrying will not help.`;
    case "refused":
      return `The assistant's server closed the connection (${p.message}).`;
    default:
      return ""; // unreachable: the header says offline; relogin: its own banner
  }
}

/**
 * A constructed stylesheet where supported: unlike a <style> element, it is not
 * blocked by a host page's strict `style-src` CSP.
 */
function styleNodes(root: ShadowRoot): Node[] {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    root.adoptedStyleSheets = [sheet];
    return [];
  } catch {
    return [h("style", null, STYLES)];
  }
}

function safeGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function safeSet(key: string, v: string | null): void {
  try {
    if (v === null) localStorage.removeItem(key);
    else localStorage.setItem(key, v);
  } catch {
    // storage blocked: the selection is simply not remembered
  }
}

const OTHER_DEVICE_TEXT =
  "This conversation runs on another of your devices, so it is read-only here. Continue it here to send and run its tools on this device (its files stay on the other one).";

/** A label with a shorter form a phone shows, so the header keeps to two rows (the button's name is the long one). */
function shortOnPhones(long: string, short: string): Node[] {
  return [h("span", { class: "long" }, long), h("span", { class: "short" }, short)];
}
