// Driving a page with <rtc-agent> through its UI (Playwright CSS selectors pierce
// the open shadow root), plus a few reads of the page's own state.

import type { Browser, BrowserContext, Page } from "playwright-core";
import { defer, until } from "./harness.js";

export let browser: Browser;
export function setBrowser(b: Browser): void {
  browser = b;
}

/** A fresh browser profile (own IndexedDB, localStorage, locks) closed after the test. */
export async function newProfile(viewport = { width: 1200, height: 800 }): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport });
  ctx.setDefaultTimeout(10_000);
  defer(() => ctx.close());
  return ctx;
}

/**
 * Every Content Security Policy violation of the profile's pages, as it happens:
 * the top document's `securitypolicyviolation` events (reported to the console by
 * an init script) and the browser's console reports of blocked content. The
 * sandbox frame's own CSP blocks things on purpose; its events are not counted.
 */
export async function cspViolations(ctx: BrowserContext): Promise<string[]> {
  const seen: string[] = [];
  await ctx.addInitScript(() => {
    if (window.top !== window) return;
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || "inline content"} at ${e.sourceFile || e.documentURI}:${e.lineNumber}`),
    );
  });
  ctx.on("console", (m) => {
    if (/CSP violation|Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

export interface Snapshot {
  state: string;
  executor: boolean;
  position: { epoch: string; offset: number } | null;
  stats: { refills: number; refilled: number; resets: number; lastReset: string; duplicates: number };
  sessions: { id: string; title: string; device_id: string; work_mode: string; status: string; active_turn_id?: string }[];
}

/** One method call the page made over its WebSocket, with the server's answer. */
export interface RpcFrame {
  method: string;
  data: Record<string, unknown>;
  reply?: { result?: unknown; error?: { code: number; message: string } };
}

export class AgentPage {
  readonly errors: string[] = [];
  /** Every RPC the page sent over its WebSockets, in order (read from the frames). */
  readonly rpcs: RpcFrame[] = [];

  constructor(readonly page: Page) {
    page.on("websocket", (ws) => {
      const byId = new Map<number, RpcFrame>();
      // Centrifuge's JSON protocol: one command or reply per line of a frame.
      type Wire = { id?: number; rpc?: { method?: string; data?: Record<string, unknown> }; error?: { code: number; message: string } };
      const lines = (payload: string | Buffer) => String(payload).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Wire);
      ws.on("framesent", (f) => {
        for (const c of lines(f.payload)) {
          if (!c.rpc?.method || typeof c.id !== "number") continue;
          const frame: RpcFrame = { method: c.rpc.method, data: c.rpc.data ?? {} };
          byId.set(c.id, frame);
          this.rpcs.push(frame);
        }
      });
      ws.on("framereceived", (f) => {
        for (const r of lines(f.payload)) {
          const frame = typeof r.id === "number" ? byId.get(r.id) : undefined;
          if (frame) frame.reply = r.error ? { error: r.error } : { result: r.rpc?.data };
        }
      });
    });
    page.on("pageerror", (e) => this.errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().includes("Failed to load resource")) this.errors.push(m.text());
    });
  }

  static async open(ctx: BrowserContext, url: string): Promise<AgentPage> {
    const p = new AgentPage(await ctx.newPage());
    await p.page.goto(url);
    await p.connected();
    return p;
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.connected();
  }

  /** Waits until the element's agent exists and is connected. */
  async connected(timeoutMs = 15_000): Promise<void> {
    await until("the agent to connect", () => this.page.evaluate(() => (document.querySelector("rtc-agent") as unknown as { agent?: { connectionState: string } }).agent?.connectionState === "connected"), timeoutMs);
  }

  async snapshot(): Promise<Snapshot> {
    return this.page.evaluate(() => {
      const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
      return {
        state: a.connectionState,
        executor: a.isExecutor,
        position: a.store.position(),
        stats: { ...a.stats },
        sessions: a.sessions().map((s) => ({ id: s.id, title: s.title, device_id: s.device_id, work_mode: s.work_mode, status: s.status, active_turn_id: s.active_turn_id })),
      };
    });
  }

  /** Clicks a session in the list by its title. */
  async openSession(title: string): Promise<void> {
    await this.page.locator("rtc-agent aside.sessions li", { hasText: title }).first().click();
  }

  async setMode(mode: string): Promise<void> {
    await this.page.locator("rtc-agent select[aria-label^='Work mode']").selectOption(mode);
  }

  async send(text: string): Promise<void> {
    const box = this.page.locator("rtc-agent textarea[aria-label='Message']");
    await box.fill(text);
    await box.press("Enter");
    await until("the message to be sent", async () => (await box.inputValue()) === "");
  }

  /** Text of the assistant messages of the shown session, in order. */
  async assistantTexts(): Promise<string[]> {
    return this.page.locator("rtc-agent .msg.assistant .md").allInnerTexts();
  }

  /** Waits for a complete assistant message containing `needle`; returns its text. */
  async waitForAnswer(needle: string, timeoutMs = 20_000): Promise<string> {
    return until(
      `an answer containing ${JSON.stringify(needle)}`,
      async () => {
        const texts = await this.page.locator("rtc-agent .msg.assistant[data-status='complete'] .md").allInnerTexts();
        return texts.find((t) => t.includes(needle));
      },
      timeoutMs,
    );
  }

  /** [{tool, status}] of the tool cards shown. */
  async toolCards(): Promise<{ tool: string; status: string }[]> {
    return this.page.locator("rtc-agent .tool").evaluateAll((els) => els.map((e) => ({ tool: e.getAttribute("data-tool") ?? "", status: e.getAttribute("data-status") ?? "" })));
  }

  async waitForCard(tool: string, status: string, timeoutMs = 15_000): Promise<void> {
    await until(`a ${tool} card in status ${status}`, async () => (await this.toolCards()).some((c) => c.tool === tool && c.status === status), timeoutMs);
  }

  /** Reads a file of the agent's VFS straight from IndexedDB (null when absent). */
  async vfsFile(path: string): Promise<string | null> {
    return this.page.evaluate(async (p) => {
      const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open(a.vfs.databaseName);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      try {
        const t = db.transaction(["contents"], "readonly");
        const v = await new Promise<unknown>((resolve, reject) => {
          const r = t.objectStore("contents").get(p);
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
        return typeof v === "string" ? v : v === undefined ? null : JSON.stringify(v);
      } finally {
        db.close();
      }
    }, path);
  }

  /** Paths listed in the file explorer (opens it if needed). */
  async explorerPaths(): Promise<string[]> {
    const panel = this.page.locator("rtc-agent aside.files");
    if (!(await panel.isVisible())) await this.page.locator("rtc-agent .files-toggle").click();
    return this.page.locator("rtc-agent aside.files li[data-path]").evaluateAll((els) => els.map((e) => e.getAttribute("data-path") ?? ""));
  }

  /** Entries of the executor's outbox (results not yet acknowledged), from IndexedDB. */
  async outbox(): Promise<{ rtc_id: string; client_id: string }[]> {
    return this.page.evaluate(async () => {
      const a = (document.querySelector("rtc-agent") as unknown as { agent: import("../../src/index.js").Agent }).agent;
      const name = `rtc-agent-state/${encodeURIComponent(a.userId)}/${encodeURIComponent(a.deviceId)}`;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      try {
        return await new Promise<{ rtc_id: string; client_id: string }[]>((resolve, reject) => {
          const r = db.transaction(["outbox"], "readonly").objectStore("outbox").getAll();
          r.onsuccess = () => resolve(r.result as { rtc_id: string; client_id: string }[]);
          r.onerror = () => reject(r.error);
        });
      } finally {
        db.close();
      }
    });
  }

  async localStorageNumber(key: string): Promise<number> {
    return this.page.evaluate((k) => Number(localStorage.getItem(k) ?? "0"), key);
  }

  /** The calls of `method` the page made so far. */
  calls(method: string): RpcFrame[] {
    return this.rpcs.filter((r) => r.method === method);
  }

  /** Text of the banner above the conversation ("" when hidden). */
  async banner(): Promise<string> {
    const b = this.page.locator("rtc-agent .banner");
    return (await b.isVisible()) ? b.innerText() : "";
  }

  /** Fails the test if the page reported errors. */
  noErrors(): string[] {
    return this.errors;
  }
}

/** A scripted-model turn (internal/llm/scripted/doc.go). */
export function turn(match: string, steps: object[]): object {
  return { match, steps };
}

export function call(name: string, args: object): object {
  return { name, arguments: args };
}
