// <rtc-agent server-url="…" user-id="…"> — the chat UI as a custom element (open
// shadow DOM). Token source: the `getToken` property, or the `dev-token`
// attribute for a development server (POST /api/dev/token). Extra createAgent
// options go in the `options` property. The agent starts once the element is
// connected and the document is parsed (DOMContentLoaded), so options and
// attributes set by any script of the page up to then apply; later changes to
// them apply when the element is connected again (web/README.md).

import { createAgent } from "../agent/agent.js";
import type { Agent } from "../agent/types.js";
import type { AgentOptions } from "../agent/types.js";
import { WORK_MODES, type WorkMode } from "../protocol/types.js";
import { ReloginRequired } from "../realtime/connection.js";
import type { HostToolDefinition, ToolArgs, ToolParameters } from "../tools/typed.js";
import { Ui } from "./app.js";

/** Base class that works where HTMLElement does not exist (SSR, workers): never defined there. */
const Base = (typeof HTMLElement === "function" ? HTMLElement : class {}) as typeof HTMLElement;

export class RtcAgentElement extends Base {
  static observedAttributes = ["server-url", "user-id", "dev-token"];
  private optionsValue: Partial<AgentOptions> = {};
  private waitingForParse = false;
  private tokenFn: AgentOptions["getToken"] | null = null;
  private agentValue: Agent | null = null;
  private starting: Promise<Agent> | null = null;
  // any: each tool has its own argument type
  private readonly pendingTools: HostToolDefinition<any, any>[] = [];
  private ui: Ui | null = null;
  private teardown: ReturnType<typeof setTimeout> | null = null;
  private readyWaiters: ((a: Agent) => void)[] = [];

  /** Extra createAgent options (tools, scriptTimeoutMs, locks, …), read when the agent starts. */
  get options(): Partial<AgentOptions> {
    return this.optionsValue;
  }

  set options(v: Partial<AgentOptions>) {
    this.optionsValue = v ?? {};
    if (this.starting) console.warn("<rtc-agent>: options set after the agent started apply when the element is connected again");
  }

  /** The headless agent behind the UI (null until started). */
  get agent(): Agent | null {
    return this.agentValue;
  }

  get getToken(): AgentOptions["getToken"] | null {
    return this.tokenFn;
  }

  set getToken(fn: AgentOptions["getToken"] | null) {
    this.tokenFn = fn;
    if (this.isConnected) void this.start();
  }

  /** Resolves with the agent once it is created. */
  whenReady(): Promise<Agent> {
    return this.agentValue ? Promise.resolve(this.agentValue) : new Promise((r) => this.readyWaiters.push(r));
  }

  /** Registers a host tool now or, before the agent exists, when it starts. */
  registerTool<const P extends ToolParameters = ToolParameters, R = unknown>(def: HostToolDefinition<P, ToolArgs<P>, string, R>): void {
    if (this.agentValue) this.agentValue.registerTool(def);
    else this.pendingTools.push(def as HostToolDefinition<any, any>);
  }

  /** Puts text into the composer; `send` sends it, `newSession` starts a new conversation. */
  prefill(text: string, opts: { send?: boolean; newSession?: boolean } = {}): void {
    this.ui?.prefill(text, opts);
  }

  connectedCallback(): void {
    if (this.teardown) clearTimeout(this.teardown);
    this.teardown = null;
    if (!this.shadowRoot) this.attachShadow({ mode: "open" });
    if (!this.ui) this.ui = new Ui(this.shadowRoot!);
    queueMicrotask(() => void this.start());
  }

  disconnectedCallback(): void {
    // Moving the element in the DOM disconnects and reconnects it: keep the agent then.
    this.teardown = setTimeout(() => {
      this.ui?.dispose();
      this.agentValue?.destroy();
      this.agentValue = null;
      this.starting = null;
      this.ui = null;
      this.shadowRoot?.replaceChildren();
    }, 0);
  }

  attributeChangedCallback(): void {
    if (this.isConnected && !this.starting) void this.start();
  }

  private tokenSource(): AgentOptions["getToken"] | null {
    if (this.tokenFn) return this.tokenFn;
    if (!this.hasAttribute("dev-token")) return null;
    const user = this.getAttribute("user-id");
    if (!user) return null;
    const url = new URL("/api/dev/token", this.serverUrl());
    // A development token allows the modes the element offers, so the server enforces them too.
    const modes = this.modesAttr();
    return async () => {
      const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user_id: user, ...(modes ? { modes } : {}) }) });
      if (r.status === 400 || r.status === 401 || r.status === 403 || r.status === 404) throw new ReloginRequired(`dev token refused (${r.status})`);
      if (!r.ok) throw new Error(`dev token: HTTP ${r.status}`);
      return ((await r.json()) as { token: string }).token;
    };
  }

  /** The `modes` attribute: the work modes offered, e.g. "manual, plan" (null: all). */
  private modesAttr(): WorkMode[] | null {
    const modes = [...new Set(this.getAttribute("modes")?.split(/[\s,]+/).filter((m): m is WorkMode => WORK_MODES.includes(m as WorkMode)))];
    return modes.length ? modes : null;
  }

  private serverUrl(): string {
    return this.getAttribute("server-url") || location.origin;
  }

  private start(): Promise<Agent> | void {
    if (this.starting || !this.ui) return;
    if (!documentParsed()) {
      // Scripts after the element (module scripts included) may still set options.
      if (!this.waitingForParse) {
        this.waitingForParse = true;
        document.addEventListener("DOMContentLoaded", () => ((this.waitingForParse = false), void this.start()), { once: true });
      }
      return;
    }
    const getToken = this.tokenSource();
    if (!getToken) {
      this.ui.banner("Waiting for a token source: set the element's getToken property (or the dev-token attribute on a development server).");
      return;
    }
    const ui = this.ui;
    ui.banner("");
    const mode = this.getAttribute("work-mode") as WorkMode | null;
    const modes = this.modesAttr();
    this.starting = createAgent({
      ...this.optionsValue,
      serverUrl: this.serverUrl(),
      userId: this.getAttribute("user-id") || this.optionsValue.userId,
      getToken,
      ...(mode && WORK_MODES.includes(mode) ? { workMode: mode } : {}),
      ...(modes ? { modes } : {}),
    });
    this.starting.then(
      (agent) => {
        if (this.ui !== ui) return agent.destroy();
        this.agentValue = agent;
        for (const t of this.pendingTools.splice(0)) agent.registerTool(t);
        agent.events.on("relogin", (r) => this.dispatchEvent(new CustomEvent("rtc-agent-relogin", { detail: r })));
        agent.events.on("state", (s) => this.dispatchEvent(new CustomEvent("rtc-agent-state", { detail: s })));
        ui.attach(agent, this.getAttribute("title") || "Assistant");
        for (const w of this.readyWaiters.splice(0)) w(agent);
        this.dispatchEvent(new CustomEvent("rtc-agent-ready", { detail: { agent } }));
      },
      (err: Error) => {
        this.starting = null;
        ui.banner(`Could not start: ${err.message}`, true);
      },
    );
    return this.starting;
  }
}

/** True once DOMContentLoaded has fired: every parser-inserted script has run. */
function documentParsed(): boolean {
  if (typeof document === "undefined" || document.readyState === "complete") return true;
  if (document.readyState === "loading") return false;
  // "interactive" also covers the deferred and module scripts that run before DOMContentLoaded.
  const nav = globalThis.performance?.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined;
  return !nav || nav.domContentLoadedEventStart > 0;
}

/** Defines <rtc-agent> (once). Called on import of the SDK in a browser. */
export function defineElement(name = "rtc-agent"): void {
  if (typeof customElements !== "undefined" && !customElements.get(name)) customElements.define(name, class extends RtcAgentElement {});
}

defineElement();

declare global {
  interface HTMLElementTagNameMap {
    "rtc-agent": RtcAgentElement;
  }
}
