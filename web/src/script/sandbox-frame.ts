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
   * reloads it) and resolves once the sandbox reports ready.
   */
  static start(url: string, bootTimeoutMs: number, role: SandboxRole = "script", memoryLimitBytes?: number): Promise<SandboxFrame> {
    const sandboxOrigin = new URL(url, document.baseURI).origin;
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.setAttribute("aria-hidden", "true");
    iframe.tabIndex = -1;
    iframe.title = "RTC Agent script sandbox";
    iframe.referrerPolicy = "no-referrer";
    iframe.style.cssText = "position:absolute;width:0;height:0;border:0;visibility:hidden";
    iframe.src = url;

    return new Promise<SandboxFrame>((resolve, reject) => {
      const channel = new MessageChannel();
      const cleanup = () => {
        clearTimeout(timer);
        window.removeEventListener("message", onWindowMessage);
        document.removeEventListener("securitypolicyviolation", onViolation);
      };
      const fail = (message: string) => {
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
        const hello: HelloMessage = { [SANDBOX_MARKER]: "hello", version: SANDBOX_PROTOCOL_VERSION, role, memoryLimitBytes };
        iframe.contentWindow?.postMessage(hello, "*", [channel.port2]);
      };
      const onViolation = (e: SecurityPolicyViolationEvent) => {
        if (!["frame-src", "child-src", "default-src"].includes(e.effectiveDirective)) return;
        if (!e.blockedURI.startsWith(sandboxOrigin)) return;
        fail(`this page's Content-Security-Policy blocks the script sandbox; add ${sandboxOrigin} to its frame-src (or child-src) directive`);
      };
      channel.port1.onmessage = (e: MessageEvent) => {
        const m = e.data as FrameToHost;
        if (m?.t === "ready") {
          cleanup();
          resolve(new SandboxFrame(iframe, channel.port1));
        } else if (m?.t === "fatal") {
          fail(`the script sandbox refused to start: ${m.message}`);
        }
      };
      const timer = setTimeout(
        () =>
          fail(
            `the script sandbox at ${url} did not start within ${bootTimeoutMs} ms; check that the server serves it, ` +
              `and, if this page has a Content-Security-Policy, that ${sandboxOrigin} is allowed in frame-src`,
          ),
        bootTimeoutMs,
      );
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
