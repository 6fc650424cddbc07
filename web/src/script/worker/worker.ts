// Entry of the per-run worker. The sandbox frame starts it from a blob URL, so it
// inherits the frame's CSP (no network, no eval) and opaque origin. It receives one
// `run` message with its run port, executes the script once, posts `done` and closes.

import type { HostToWorker, LogLevel, RpcMethod, RunMessage, WireError, WorkerToHost } from "../protocol.js";
import { WRAPPER_LINES, compileScript } from "./compile.js";
import { formatLogArgs, toWireError } from "./format.js";

// Keep our own references before user code can replace or delete globals.
const load = importScripts.bind(self);
const closeSelf = self.close.bind(self);
const stringify = JSON.stringify;
const parse = JSON.parse;

/** Upper bound on console messages sent by one run; the host enforces its own too. */
const MAX_LOG_MESSAGES = 1000;

let started = false;

self.onmessage = (e: MessageEvent) => {
  const msg = e.data as RunMessage | undefined;
  const port = e.ports[0];
  if (started || !port || msg?.t !== "run") return;
  started = true;
  self.onmessage = null;
  void execute(msg, port);
};

async function execute(msg: RunMessage, port: MessagePort): Promise<void> {
  const post = (m: WorkerToHost) => port.postMessage(m);
  const isolation = isolationProblem();
  if (isolation) {
    post({ t: "done", ok: false, error: { name: "SandboxError", message: isolation } });
    return;
  }
  blockNetworkGlobals();
  let compiledUrl: string | null = null;
  try {
    const compiled = compileScript(msg.code, load);
    compiledUrl = compiled.url;
    if (msg.mode === "check") {
      post({ t: "done", ok: true });
      return;
    }
    const rpc = rpcClient(port);
    const consoleApi = makeConsole(post, msg.maxLogChars);
    self.onunhandledrejection = (ev: PromiseRejectionEvent) => {
      consoleApi.error("Unhandled promise rejection:", ev.reason);
    };
    const api = makeApi(rpc);
    const params: unknown = parse(msg.paramsJson);
    const value = await compiled.fn.call(undefined, api, params, consoleApi);
    post(resultMessage(value, msg.maxResultChars));
  } catch (err) {
    post({ t: "done", ok: false, error: toWireError(err, compiledUrl, WRAPPER_LINES) });
  } finally {
    closeSelf();
  }
}

/**
 * Refuses to run when the sandbox is not what it should be. A CSP without
 * 'unsafe-eval' makes `new Function` throw; if it does not, the page was served
 * without its CSP header and nothing would stop the network.
 */
function isolationProblem(): string | null {
  if (self.origin !== "null") {
    return `the script sandbox runs with origin ${self.origin}, not an opaque origin; the sandbox page must be served with its Content-Security-Policy header (see web/README.md)`;
  }
  try {
    new Function("return 1")();
  } catch {
    return null;
  }
  return "the script sandbox has no Content-Security-Policy in force; refusing to run scripts (see web/README.md)";
}

/**
 * The CSP is the boundary; these stubs only turn "blocked by CSP" network
 * errors into a message that tells the model what to do instead.
 */
function blockNetworkGlobals(): void {
  const message = "network access is not available to scripts; use rtcAgent.fs.* for files and rtcAgent.call(name, args) for the host's functions";
  const names = ["fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "WebTransport", "EventSource", "importScripts", "Worker", "SharedWorker"];
  for (const name of names) {
    const stub = function blocked(): never {
      throw new Error(`${name} is blocked: ${message}`);
    };
    try {
      Object.defineProperty(self, name, { value: stub, writable: false, configurable: false });
    } catch {
      // Not redefinable in this browser: the CSP still blocks it.
    }
  }
}

type Rpc = (method: RpcMethod, args: unknown[]) => Promise<unknown>;

function rpcClient(port: MessagePort): Rpc {
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  port.onmessage = (e: MessageEvent) => {
    const m = e.data as HostToWorker;
    const p = pending.get(m?.id);
    if (!p || m.t !== "reply") return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(fromWireError(m.error));
  };
  return (method, args) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      port.postMessage({ t: "call", id, method, args } satisfies WorkerToHost);
    });
}

function fromWireError(w: WireError): Error {
  const err = new Error(w.message) as Error & { code?: string };
  if (w.name) err.name = w.name;
  if (w.code) err.code = w.code;
  return err;
}

/** The `rtcAgent` object a script receives. Frozen so scripts cannot confuse later calls. */
function makeApi(rpc: Rpc) {
  const fs = Object.freeze({
    read: (path: string) => rpc("fs.read", [path]),
    write: (path: string, content: string) => rpc("fs.write", [path, content]),
    ls: (path = "/") => rpc("fs.ls", [path]),
    stat: (path: string) => rpc("fs.stat", [path]),
    exists: (path: string) => rpc("fs.exists", [path]),
    mkdir: (path: string) => rpc("fs.mkdir", [path]),
    remove: (path: string) => rpc("fs.remove", [path]),
    rename: (from: string, to: string) => rpc("fs.rename", [from, to]),
    walk: (path = "/") => rpc("fs.walk", [path]),
  });
  return Object.freeze({
    fs,
    call: (name: string, args?: unknown) => rpc("call", [name, args]),
  });
}

function makeConsole(post: (m: WorkerToHost) => void, maxChars: number) {
  let sent = 0;
  const emit = (level: LogLevel) => (...args: unknown[]) => {
    if (sent++ >= MAX_LOG_MESSAGES) return;
    post({ t: "log", level, text: formatLogArgs(args, maxChars) });
  };
  return Object.freeze({ log: emit("log"), info: emit("info"), warn: emit("warn"), error: emit("error"), debug: emit("debug") });
}

function resultMessage(value: unknown, maxChars: number): WorkerToHost {
  if (value === undefined) return { t: "done", ok: true };
  let json: string | undefined;
  try {
    json = stringify(value);
  } catch (err) {
    return { t: "done", ok: false, error: { name: "TypeError", message: `the script's return value is not JSON-serialisable: ${(err as Error).message}` } };
  }
  if (json === undefined) return { t: "done", ok: true }; // functions, symbols
  if (json.length > maxChars) {
    return { t: "done", ok: false, error: { name: "RangeError", message: `the script's return value is ${json.length} characters of JSON; the limit is ${maxChars}. Return less, or write it to a file with rtcAgent.fs.write.` } };
  }
  return { t: "done", ok: true, resultJson: json };
}
