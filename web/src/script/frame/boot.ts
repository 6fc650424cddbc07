// Boot script inlined into sandbox.html (allowed by its CSP hash), the page the SDK
// frames with sandbox="allow-scripts".
// It runs no model code itself: it only starts one blob Worker per run (keeping a
// spare one warm) and hands the host's run port to it. Model code stays off this
// thread because a document can navigate itself or open WebRTC, which CSP does not
// stop; a worker has neither.

import {
  SANDBOX_MARKER,
  SANDBOX_PROTOCOL_VERSION,
  type FrameLoadedMessage,
  type FrameToHost,
  type HelloMessage,
  type HostToFrame,
} from "../protocol.js";

/** Bundled text of worker/worker.ts, injected by build.mjs. */
declare const __RTC_WORKER_SOURCE__: string;
/** Bundled text of tools/search/worker.ts (grep and find), injected by build.mjs. */
declare const __RTC_SEARCH_WORKER_SOURCE__: string;

let control: MessagePort | null = null;
let workerUrl: string | null = null;
let searchUrl: string | null = null;
let spare: Worker | null = null;
const running = new Map<string, Worker>();

function send(m: FrameToHost): void {
  control?.postMessage(m);
}

/** Memory cap of the runs this frame serves (from `hello`), so a spare worker can load its engine early. */
let memoryLimitBytes = 0;

function startWorker(): Worker {
  workerUrl ??= URL.createObjectURL(new Blob([__RTC_WORKER_SOURCE__], { type: "text/javascript" }));
  const w = new Worker(workerUrl, { name: "rtc-agent-script" });
  if (memoryLimitBytes > 0) w.postMessage({ t: "prepare", memoryLimitBytes });
  return w;
}

function takeWorker(): Worker {
  const w = spare ?? startWorker();
  spare = null;
  // Start the next run's worker now, so a run pays only for posting its code.
  setTimeout(() => {
    if (!spare && control) spare = safeStart();
  }, 0);
  return w;
}

function safeStart(): Worker | null {
  try {
    return startWorker();
  } catch {
    return null; // reported when a run actually needs it
  }
}

function onControl(e: MessageEvent): void {
  const m = e.data as HostToFrame;
  if (m?.t === "run") {
    const port = e.ports[0];
    if (!port) return;
    let w: Worker;
    try {
      w = takeWorker();
    } catch (err) {
      send({ t: "worker-error", runId: m.runId, message: `could not start the script worker: ${String(err)}` });
      return;
    }
    running.set(m.runId, w);
    w.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      send({ t: "worker-error", runId: m.runId, message: ev.message || "the script worker failed" });
    };
    w.postMessage(m, [port]);
  } else if (m?.t === "search") {
    const port = e.ports[0];
    if (!port) return;
    try {
      searchUrl ??= URL.createObjectURL(new Blob([__RTC_SEARCH_WORKER_SOURCE__], { type: "text/javascript" }));
      const w = new Worker(searchUrl, { name: "rtc-agent-search" });
      running.set(m.runId, w);
      w.onerror = (ev: ErrorEvent) => {
        ev.preventDefault();
        send({ t: "worker-error", runId: m.runId, message: ev.message || "the search worker failed" });
      };
      w.postMessage(null, [port]);
    } catch (err) {
      send({ t: "worker-error", runId: m.runId, message: `could not start the search worker: ${String(err)}` });
    }
  } else if (m?.t === "drop") {
    const w = running.get(m.runId);
    running.delete(m.runId);
    if (w && m.reuse) {
      // A warm worker beats a fresh spare that may still be loading the engine.
      spare?.terminate();
      spare = w;
    } else {
      w?.terminate();
    }
  }

}

function fatal(): string | null {
  // Fail closed when served without the header CSP (`sandbox` forces the opaque
  // origin; a script-src without 'unsafe-eval' makes new Function throw).
  if (self.origin !== "null") return `sandbox page runs with origin ${self.origin}; it must be served with its CSP header including "sandbox allow-scripts"`;
  try {
    new Function("return 1")();
  } catch {
    return null;
  }
  return "sandbox page has no Content-Security-Policy in force; refusing to run scripts";
}

window.addEventListener("message", (e: MessageEvent) => {
  // Only the embedding page may open the control channel, and only once.
  if (control || e.source !== window.parent) return;
  const hello = e.data as HelloMessage | undefined;
  const port = e.ports[0];
  if (hello?.[SANDBOX_MARKER] !== "hello" || !port) return;
  control = port;
  control.onmessage = onControl;
  if (typeof hello.memoryLimitBytes === "number") memoryLimitBytes = hello.memoryLimitBytes;
  const problem = fatal();
  if (problem) {
    send({ t: "fatal", message: problem });
    return;
  }
  if (hello.version !== SANDBOX_PROTOCOL_VERSION) {
    send({ t: "fatal", message: `sandbox protocol ${SANDBOX_PROTOCOL_VERSION} does not match the SDK's ${hello.version}; serve sandbox.html from the same build as rtc-agent.js` });
    return;
  }
  try {
    if (hello.role !== "search") spare = startWorker();
  } catch (err) {
    send({ t: "fatal", message: `cannot start workers in the sandbox: ${String(err)}` });
    return;
  }
  send({ t: "ready", version: SANDBOX_PROTOCOL_VERSION });
});

const loaded: FrameLoadedMessage = { [SANDBOX_MARKER]: "frame-loaded", version: SANDBOX_PROTOCOL_VERSION };
// The frame's origin is opaque and the host's is unknown, hence "*"; the message
// carries nothing secret.
window.parent.postMessage(loaded, "*");
