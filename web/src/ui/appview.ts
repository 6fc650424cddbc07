// A tool's view (MCP Apps) in its call's card. The MCP server declared the
// view; the RTC Agent server serves it (`rtc.app`) under a CSP of its own, and
// it runs here in a frame sandboxed to an opaque origin (scripts only: no
// storage, cookies, forms, popups or navigation of this page). It is shown
// once the call runs (so it learns no more than its MCP server is sent: a call
// denied or refused never reaches it). The page sends it the call's arguments
// and, once the call ends, its result or why it stopped. It may ask to open a
// link or to send a message in the chat, one of each at a time, shown above
// it in the card and done only when the person clicks. It may call tools of
// its own MCP server, one call at a time (`v1.app.call`): the server runs
// each as an RTC of the view's turn under the session's work mode and
// approvals, so a call that needs the person asks in the card, and the view
// gets the call's result once it ended. It may read its server's resources
// (`v1.app.resource`: reads change nothing, so no one is asked). Its context
// for the model goes with the person's next message in the chat. It may ask
// to be shown over the whole chat (fullscreen): asked in the card like a
// link, then within the chat's own box (never over the host page) under a
// bar naming it with the way back; focus stays in it, and a question or
// confirmation that shows up in the chat brings it back inline. It may ask
// to float in a corner of the chat's messages (picture-in-picture), asked
// the same way, staying in sight while the chat scrolls until the person
// puts it back. It changes nothing else. It grows at
// once but shrinks only when the pointer is off it, so what is below never
// moves under a click aimed at it.

import type { Rtc } from "../protocol/types.js";
import type { Bridge, DisplayMode, ResourceResult, ToolResult } from "./appbridge.js";
import { showInvisible } from "../vfs/path.js";
import { h } from "./dom.js";
import { zodJitless } from "./jitless.js";

const MIN_HEIGHT = 48;
const MAX_HEIGHT = 640;
/** A view's path on the server: /mcp-apps/<server>__<tool>. */
const APP_PATH = /^\/mcp-apps\/[A-Za-z0-9_-]+$/;
/** The longest message a view may propose, in characters (the person reads it whole before it goes). */
const MAX_MESSAGE = 8_000;
/** A call's view is shown from when the call runs. */
const RUN_STATUSES: ReadonlySet<string> = new Set(["executing", "completed", "failed"]);

/** Sends a message in the view's session, as the person (agent.send). */
export type SendInChat = (sessionId: string, text: string) => Promise<unknown>;

/**
 * Calls a tool of the MCP server of call rtcId for its view: the result once
 * the call ended, or a rejection when the server refused to make it. signal
 * ends the wait (the view was closed).
 */
export type CallFromView = (rtcId: string, tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>;

/**
 * Keeps a view's context for the model until the person's next message in
 * its chat (agent.setViewContext): false when it is too large.
 */
export type ShareContext = (sessionId: string, rtcId: string, text: string) => boolean;

/** Reads a resource of the MCP server of call rtcId for its view; rejects with the server's refusal. */
export type ReadFromView = (rtcId: string, uri: string) => Promise<ResourceResult>;

/** A tool's name as a view calls it: its name at its own server. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** The largest arguments of a view's call, in bytes of JSON (the server's limit). */
const MAX_CALL_ARGS = 64 * 1024;

/** One call's view: its frame, kept across the card's updates (a moved frame would load again). */
class AppView {
  readonly node: HTMLElement;
  private readonly frame: HTMLIFrameElement;
  private readonly links: HTMLElement;
  /** Shown above the view while it covers the chat: its name and the way back. */
  private readonly bar: HTMLElement;
  private readonly back: HTMLButtonElement;
  private mode: DisplayMode = "inline";
  /** While fullscreen: what keeps focus in the view and watches for prompts; undone going back. */
  private undoFullscreen: (() => void) | null = null;
  private bridge: Bridge | null = null;
  /** The ask of each kind the person has not answered yet (one at a time). */
  private readonly asking = new Set<string>();
  /** The height the view asked for while the pointer was on it, applied when it leaves. */
  private pendingHeight: number | null = null;
  private hovered = false;
  private rtc: Rtc;
  private ready = false;
  private closed = false;
  /** A call of the view is under way: the next waits for its end or is refused. */
  private calling = false;
  /** Ends the waits of the view's calls when it closes. */
  private readonly stop = new AbortController();
  /** What the view has been told since it last started: the arguments, how the call ended. */
  private sentInput = false;
  private sentEnd = false;

  constructor(
    rtc: Rtc,
    src: string,
    private readonly sendInChat: SendInChat,
    private readonly callFromView: CallFromView,
    private readonly shareContext: ShareContext,
    private readonly readFromView: ReadFromView,
  ) {
    this.rtc = rtc;
    this.frame = h("iframe", {
      class: "app",
      attrs: { sandbox: "allow-scripts", referrerpolicy: "no-referrer", title: `The view of ${rtc.tool_name}`, loading: "lazy" },
    });
    this.links = h("div", { class: "app-links" });
    this.back = h("button", { attrs: { type: "button" }, on: { click: () => this.show("inline", true) } }, "Back to the chat");
    this.bar = h("div", { class: "app-bar", attrs: { hidden: "" } }, h("span", null, `The view of ${rtc.tool_name}`), this.back);
    this.node = h("div", { class: "app-view" }, this.bar, this.frame, this.links);
    this.node.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.mode !== "inline") this.show("inline", true);
    });
    this.frame.addEventListener("mouseenter", () => (this.hovered = true));
    this.frame.addEventListener("mouseleave", () => {
      this.hovered = false;
      if (this.pendingHeight !== null) this.resize(this.pendingHeight);
    });
    void this.start(src);
  }

  private async start(src: string): Promise<void> {
    try {
      zodJitless();
      const { connect } = await import("./appbridge.js");
      // The frame's window exists once the card is in the page.
      for (let i = 0; i < 600 && !this.frame.contentWindow && !this.closed; i++) await new Promise((r) => requestAnimationFrame(r));
      const win = this.frame.contentWindow;
      if (this.closed) return;
      if (!win) throw new Error("its frame never reached the page");
      this.bridge = await connect(win, "RTC Agent", { theme: theme(), displayMode: "inline", availableDisplayModes: ["inline", "fullscreen", "pip"], platform: "web" }, {
        initialized: () => {
          this.ready = true;
          this.sentInput = this.sentEnd = false;
          this.send();
        },
        size: (height) => this.resize(height),
        openLink: (url) => this.askOpen(url),
        message: (text) => this.askSend(text),
        callTool: (name, args) => this.callTool(name, args),
        context: (text) => !this.closed && this.shareContext(this.rtc.session_id, this.rtc.id, text),
        readResource: (uri) => this.readFromView(this.rtc.id, uri),
        displayMode: (mode) => this.askMode(mode),
      });
      if (this.closed) this.bridge.close();
      else this.frame.src = src;
    } catch (e) {
      this.node.replaceChildren(h("div", { class: "view-error" }, `The tool's view could not start: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  update(rtc: Rtc): void {
    this.rtc = rtc;
    this.send();
  }

  /**
   * The view asks for a display mode: inline at once, fullscreen or
   * picture-in-picture only once the person agreed in the card (so a view
   * cannot cover the chat again right after the person went back). Returns
   * the mode it is shown in.
   */
  private async askMode(mode: string): Promise<DisplayMode> {
    if (mode === "inline") this.show("inline", false);
    if ((mode !== "fullscreen" && mode !== "pip") || this.mode === mode || this.promptsElsewhere()) return this.mode;
    const yes =
      mode === "fullscreen"
        ? await this.ask("app-fullscreen", "The view asks to cover the chat", [h("span", null, "The view asks to cover the chat until you go back")], "Cover the chat", async () => true)
        : await this.ask("app-pip", "The view asks to float over the chat", [h("span", null, "The view asks to stay in a corner of the chat while you scroll, until you put it back")], "Float it", async () => true);
    if (yes && !this.promptsElsewhere()) this.show(mode, false);
    return this.mode;
  }

  /** Whether the chat shows a question or confirmation outside this view (it would hide it). */
  private promptsElsewhere(): boolean {
    const root = this.node.getRootNode() as Document | ShadowRoot;
    return [...root.querySelectorAll(".prompt")].some((p) => !this.node.contains(p));
  }

  /**
   * Shows the view in its card or over the whole chat (the frame stays where
   * it is: a moved frame would load again). byPerson: the person changed it,
   * so the view is told.
   */
  private show(mode: DisplayMode, byPerson: boolean): void {
    if (this.closed || mode === this.mode) return;
    this.mode = mode;
    const full = mode === "fullscreen";
    const pip = mode === "pip";
    this.node.classList.toggle("fullscreen", full);
    this.node.classList.toggle("pip", pip);
    this.bar.hidden = mode === "inline";
    this.back.textContent = pip ? "Back in its card" : "Back to the chat";
    // Floating: in the corner of the chat's messages, below what is above them.
    this.node.style.top = pip ? `${this.messagesTop() + 8}px` : "";
    this.undoFullscreen?.();
    this.undoFullscreen = null;
    if (full) {
      this.undoFullscreen = this.holdFullscreen();
      this.back.focus({ preventScroll: true });
    } else if (byPerson) this.frame.focus({ preventScroll: true });
    if (byPerson) this.bridge?.displayMode(mode);
  }

  /** Where the chat's messages start, below the box the view is placed in. */
  private messagesTop(): number {
    const root = this.node.getRootNode() as Document | ShadowRoot;
    const box = this.node.offsetParent;
    const messages = root.querySelector(".messages");
    if (!box || !messages) return 0;
    return Math.max(0, messages.getBoundingClientRect().top - box.getBoundingClientRect().top);
  }

  /**
   * While the view covers the chat: focus that would go to what it covers
   * comes back to its bar, and a prompt shown elsewhere in the chat (a
   * question, a confirmation) brings it back inline so the person sees it.
   */
  private holdFullscreen(): () => void {
    const root = this.node.getRootNode() as Document | ShadowRoot;
    const back = this.bar.querySelector("button");
    const keep = (e: Event) => {
      if (e.target instanceof Node && !this.node.contains(e.target)) back?.focus({ preventScroll: true });
    };
    const isPrompt = (n: Node) => n instanceof Element && !this.node.contains(n) && (n.matches(".prompt") || n.querySelector(".prompt") !== null);
    const watch = new MutationObserver((records) => {
      if (records.some((r) => [...r.addedNodes].some(isPrompt))) this.show("inline", true);
    });
    root.addEventListener("focusin", keep);
    watch.observe(root, { childList: true, subtree: true });
    return () => {
      root.removeEventListener("focusin", keep);
      watch.disconnect();
    };
  }

  /** Sets the frame's height (48-640 px): growing at once, shrinking once the pointer is off the frame. */
  private resize(height: number): void {
    const px = Math.round(Math.min(Math.max(height, MIN_HEIGHT), MAX_HEIGHT));
    if (this.hovered && px < this.frame.offsetHeight) {
      this.pendingHeight = px;
      return;
    }
    this.pendingHeight = null;
    this.frame.style.height = `${px}px`;
  }

  /** Sends the view what it has not been sent of the call: its arguments once, then how it ended. */
  private send(): void {
    const b = this.bridge;
    if (!b || !this.ready) return;
    const r = this.rtc;
    if (!this.sentInput) {
      b.input(isRecord(r.arguments) ? r.arguments : {});
      this.sentInput = true;
    }
    const end = this.sentEnd ? null : endOf(r);
    if (!end) return;
    this.sentEnd = true;
    if ("cancelled" in end) b.cancelled(end.cancelled);
    else b.result(end);
  }

  /** Asks the person whether to open the link the view asked for; only http and https. */
  private askOpen(url: string): Promise<boolean> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return Promise.resolve(false);
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") return Promise.resolve(false);
    return this.ask("app-link", "The view asks to open a link", [h("span", null, "The view asks to open "), h("strong", { attrs: { title: u.href } }, u.origin)], "Open", async () => {
      window.open(u.href, "_blank", "noopener,noreferrer");
      return true;
    });
  }

  /** Asks the person whether to send the message the view wrote, shown whole, in the call's chat. */
  private askSend(text: string): Promise<boolean> {
    if (text.trim() === "" || [...text].length > MAX_MESSAGE) return Promise.resolve(false);
    const shown = h("blockquote", { class: "app-text" }, showInvisible(text));
    return this.ask("app-message", "The view asks to send a message", [h("span", null, "The view asks to send this message in the chat:"), shown], "Send", async () => {
      try {
        await this.sendInChat(this.rtc.session_id, text);
        return true;
      } catch {
        return false;
      }
    });
  }

  /**
   * Calls a tool of the view's own server, one call at a time: a second call
   * while one is under way, a name that is not a tool's or arguments over the
   * limit are refused here. Whether it runs is the server's decision and the
   * person's (asked in the card when the work mode says so).
   */
  private async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (!TOOL_NAME.test(name)) throw new Error("a view calls a tool of its own server by its name there");
    if (new TextEncoder().encode(JSON.stringify(args)).length > MAX_CALL_ARGS) throw new Error(`the call's arguments are larger than ${MAX_CALL_ARGS} bytes`);
    if (this.calling) throw new Error("the view's previous call has not ended: one call at a time");
    this.calling = true;
    try {
      return await this.callFromView(this.rtc.id, name, args, this.stop.signal);
    } finally {
      this.calling = false;
    }
  }

  /**
   * Shows a request of the view in the card with a button that does it and one
   * that declines; resolves with whether it was done. While one of a kind
   * waits, the next of that kind is declined at once.
   */
  private ask(cls: string, label: string, body: HTMLElement[], action: string, act: () => Promise<boolean>): Promise<boolean> {
    if (this.asking.has(cls)) return Promise.resolve(false);
    this.asking.add(cls);
    return new Promise((resolve) => {
      const done = async (yes: boolean) => {
        row.remove();
        this.asking.delete(cls);
        resolve(yes ? await act() : false);
      };
      const row = h(
        "div",
        { class: `app-ask ${cls}`, attrs: { role: "group", "aria-label": label } },
        ...body,
        h("button", { attrs: { type: "button" }, on: { click: () => void done(true) } }, action),
        h("button", { class: "ghost", attrs: { type: "button" }, on: { click: () => void done(false) } }, "Not now"),
      );
      this.links.append(row);
    });
  }

  close(): void {
    this.show("inline", false);
    this.closed = true;
    this.stop.abort();
    this.bridge?.close();
  }
}

/** How a call ended, as the view is told: a result, or why it was cancelled; null while it runs. */
export function endOf(r: Rtc): ToolResult | { cancelled: string } | null {
  switch (r.status) {
    case "completed": {
      const text = typeof r.output === "string" ? r.output : JSON.stringify(r.output ?? null);
      const res: ToolResult = { content: [{ type: "text", text }] };
      // The server keeps a tool's structured content apart when it fits;
      // otherwise it is in the text (the specification's rule for older
      // clients) when the text is JSON, and the view gets it back from there.
      const structured = r.structured_output ?? parseObject(text);
      if (structured) res.structuredContent = structured;
      return res;
    }
    case "failed":
      return { content: [{ type: "text", text: r.error ?? "failed" }], isError: true };
    case "timeout":
    case "rejected":
      return { cancelled: r.error || r.status };
  }
  return null;
}

/** The page's colour scheme, as the chat's styles follow it. */
function theme(): "light" | "dark" {
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function parseObject(text: string): Record<string, unknown> | null {
  if (!text.startsWith("{")) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The views of the calls a chat shows, by RTC id. */
export class AppViews {
  private readonly views = new Map<string, AppView>();

  constructor(
    private readonly serverUrl: string,
    private readonly sendInChat: SendInChat,
    private readonly callFromView: CallFromView,
    private readonly shareContext: ShareContext,
    private readonly readFromView: ReadFromView,
  ) {}

  /**
   * The view of a server call whose tool has one, from when the call runs;
   * null before (and for a call that never ran).
   */
  view(rtc: Rtc): HTMLElement | null {
    if (rtc.executor !== "server" || !rtc.app || !APP_PATH.test(rtc.app)) return null;
    let v = this.views.get(rtc.id);
    if (!v) {
      if (!RUN_STATUSES.has(rtc.status)) return null;
      v = new AppView(rtc, this.serverUrl.replace(/\/+$/, "") + rtc.app, this.sendInChat, this.callFromView, this.shareContext, this.readFromView);
      this.views.set(rtc.id, v);
    } else v.update(rtc);
    return v.node;
  }

  /** Ends every view (the chat shows another session). */
  clear(): void {
    for (const v of this.views.values()) v.close();
    this.views.clear();
  }
}
