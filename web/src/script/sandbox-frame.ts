// Host side of the sandbox frame: create the hidden sandboxed iframe, run the
// handshake, pass runs to it, and tear it down (the only reliable way to stop an
// endless loop at once: removing the frame ends its process, while
// Worker.terminate() leaves ~2 s of CPU and keeps delivering messages).

import {
  SANDBOX_MARKER,
  SANDBOX_PROTOCOL_VERSION,
  type FrameToHost,
  type HelloMessage,
  type HostToFrame,
  type RunMessage,
  type SandboxRole,
} from "./protocol.js";

/** Raised when the sandbox cannot be started; the message says what to fix. */
export class SandboxError extends Error {
  override readonly name = "SandboxError";
}

/**
 * How long a loaded frame may take to announce itself as the sandbox page before
 * it is taken for another page. Its boot script posts before the load event, so
 * this only covers the two messages crossing processes out of order.
 */
const LOAD_GRACE_MS = 2_000;

/** Where the sandbox page is, and whether that is the SDK's default or the host's choice. */
export interface SandboxLocation {
  url: string;
  /** True when no `sandboxUrl` was given: `url` is the default, next to the SDK's code. */
  byDefault: boolean;
  /** The RTC Agent server's sandbox page, named in the error when the default fails. */
  serverSandboxUrl?: string;
}

/** The sandbox page of `sandboxUrl`, or by default the one next to the SDK's code (`import.meta.url`). */
export function sandboxLocation(sandboxUrl: string | URL | undefined, serverSandboxUrl?: string): SandboxLocation {
  if (sandboxUrl !== undefined && sandboxUrl !== "") return { url: String(sandboxUrl), byDefault: false, serverSandboxUrl };
  return { url: String(new URL("./sandbox.html", import.meta.url)), byDefault: true, serverSandboxUrl };
}

type WorkerErrorHandler = (runId: string, message: string) => void;

/** One live sandbox frame with its control port. */
export class SandboxFrame {
  private destroyed = false;
  /** Called when the frame reports that a run's worker failed outside the script. */
  onWorkerError: WorkerErrorHandler | null = null;

  private constructor(
    private readonly iframe: HTMLIFrameElement,
    private readonly control: MessagePort,
  ) {
    control.onmessage = (e: MessageEvent) => {
      const m = e.data as FrameToHost;
      if (m?.t === "worker-error") this.onWorkerError?.(m.runId, m.message);
    };
  }

  /**
   * Appends the frame to `document.body` (not to a shadow tree: moving an iframe
   * reloads it) and resolves once the sandbox reports ready. When it cannot start,
   * rejects with a SandboxError whose message says what to fix.
   */
  static start(where: SandboxLocation, bootTimeoutMs: number, role: SandboxRole = "script", memoryLimitBytes?: number): Promise<SandboxFrame> {
    const url = where.url;
    const sandboxOrigin = new URL(url, document.baseURI).origin;
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.setAttribute("aria-hidden", "true");
    iframe.tabIndex = -1;
    iframe.title = "RTC Agent script sandbox";
    iframe.referrerPolicy = "no-referrer";
    iframe.style.cssText = "position:absolute;width:0;height:0;border:0;visibility:hidden";
    iframe.src = url;
    // The fix that names the option: only when the URL is the default (no sandboxUrl
    // given), which is wrong whenever the SDK is bundled into the host's app.
    const server = where.serverSandboxUrl && where.serverSandboxUrl !== url ? where.serverSandboxUrl : null;
    const setOption = server
      ? `set the sandboxUrl option (createAgent, or the element's .options) to your RTC Agent server's sandbox page, "${server}"`
      : `set the sandboxUrl option (createAgent, or the element's .options) to the URL of a sandbox.html served with its headers (your RTC Agent server's /sdk/sandbox.html)`;
    const byDefault = `no sandboxUrl option was given, so the SDK tried ${url}, next to its own code`;

    return new Promise<SandboxFrame>((resolve, reject) => {
      const channel = new MessageChannel();
      let settled = false;
      let loadGrace: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        clearTimeout(timer);
        clearTimeout(loadGrace);
        iframe.removeEventListener("load", onLoad);
        window.removeEventListener("message", onWindowMessage);
        document.removeEventListener("securitypolicyviolation", onViolation);
      };
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        cleanup();
        channel.port1.close();
        iframe.remove();
        reject(new SandboxError(message));
      };
      let helloSent = false;
      const onWindowMessage = (e: MessageEvent) => {
        // Any frame can post to us; only our iframe's first message counts (the
        // control port can be transferred once).
        if (helloSent || e.source !== iframe.contentWindow || e.data?.[SANDBOX_MARKER] !== "frame-loaded") return;
        helloSent = true;
        clearTimeout(loadGrace);
        const hello: HelloMessage = { [SANDBOX_MARKER]: "hello", version: SANDBOX_PROTOCOL_VERSION, role, memoryLimitBytes };
        iframe.contentWindow?.postMessage(hello, "*", [channel.port2]);
      };
      // The sandbox page announces itself from its boot script, before its load
      // event: a page that loaded without doing so is not the sandbox (a 404, the
      // host's own page, an error page). Say so now rather than at the boot deadline.
      const onLoad = () => {
        if (helloSent) return;
        clearTimeout(loadGrace);
        loadGrace = setTimeout(() => {
          if (helloSent) return;
          fail(
            where.byDefault
              ? `the script sandbox did not start: ${byDefault}, and what loaded there is not the sandbox page. If the SDK is bundled into your app, ${setOption}`
              : `the script sandbox did not start: the page at sandboxUrl ${url} loaded but is not the sandbox page (not served there?); serve the SDK's sandbox.html there with the headers of its headers.json, or point sandboxUrl at your RTC Agent server's /sdk/sandbox.html`,
          );
        }, Math.min(LOAD_GRACE_MS, bootTimeoutMs));
      };
      const onViolation = (e: SecurityPolicyViolationEvent) => {
        if (!["frame-src", "child-src", "default-src"].includes(e.effectiveDirective)) return;
        if (!e.blockedURI.startsWith(sandboxOrigin)) return;
        fail(
          where.byDefault
            ? `this page's Content-Security-Policy blocks the script sandbox (frame-src): ${byDefault}. If the SDK is bundled into your app, ${setOption} (and allow that origin in frame-src); ` +
                `to serve sandbox.html at ${url} yourself instead, add ${sandboxOrigin} to frame-src`
            : `this page's Content-Security-Policy blocks the script sandbox at ${url}; add ${sandboxOrigin} to its frame-src (or child-src) directive`,
        );
      };
      channel.port1.onmessage = (e: MessageEvent) => {
        const m = e.data as FrameToHost;
        if (m?.t === "ready") {
          settled = true;
          cleanup();
          resolve(new SandboxFrame(iframe, channel.port1));
        } else if (m?.t === "fatal") {
          fail(`the script sandbox refused to start: ${m.message}`);
        }
      };
      const timer = setTimeout(
        () =>
          fail(
            where.byDefault
              ? `the script sandbox did not start within ${bootTimeoutMs} ms: ${byDefault}. If the SDK is bundled into your app, ${setOption}; ` +
                  `if this page has a Content-Security-Policy, its frame-src must allow the sandbox's origin`
              : `the script sandbox at ${url} did not start within ${bootTimeoutMs} ms; check that the server serves it, ` +
                  `and, if this page has a Content-Security-Policy, that ${sandboxOrigin} is allowed in frame-src`,
          ),
        bootTimeoutMs,
      );
      iframe.addEventListener("load", onLoad);
      window.addEventListener("message", onWindowMessage);
      document.addEventListener("securitypolicyviolation", onViolation);
      (document.body ?? document.documentElement).appendChild(iframe);
    });
  }

  get alive(): boolean {
    return !this.destroyed;
  }

  /** Starts a run; `port` becomes the worker's end of the run channel. */
  run(msg: RunMessage, port: MessagePort): void {
    this.post(msg, [port]);
  }

  /** Starts a search worker named `runId`; `port` becomes its end of the channel. */
  startSearch(runId: string, port: MessagePort): void {
    this.post({ t: "search", runId }, [port]);
  }

  /** Asks the frame to terminate a finished run's worker. */
  drop(runId: string, reuse = false): void {
    this.post({ t: "drop", runId, reuse });
  }

  /** Removes the frame, ending its process and every worker in it. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.control.onmessage = null;
    this.control.close();
    this.iframe.remove();
  }

  private post(msg: HostToFrame, transfer: Transferable[] = []): void {
    if (this.destroyed) throw new SandboxError("the script sandbox was shut down");
    this.control.postMessage(msg, transfer);
  }
}
