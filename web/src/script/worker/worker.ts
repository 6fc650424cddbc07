// Entry of the per-run worker. The sandbox frame starts it from a blob URL, so it
// inherits the frame's CSP (no network, no eval; WebAssembly allowed) and opaque
// origin. The script runs in a QuickJS interpreter compiled to WebAssembly, which
// gives the run a hard memory cap (QuickJS refuses allocations past it, so the
// script ends with "out of memory" instead of taking the machine's memory). The
// worker loads QuickJS as soon as it starts (the frame keeps a
// spare one warm), receives one `run` message with its run port, runs the script
// once, posts `done` and closes.

import variant from "@jitl/quickjs-singlefile-browser-release-sync";
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import type { HostToWorker, LogLevel, RpcMethod, RunMessage, WireError, WorkerToHost } from "../protocol.js";
import { WRAPPER_LINES, compileScript, wrapBody } from "./compile.js";
import { scriptStack } from "./format.js";
import { PRELUDE } from "./prelude.js";

const closeSelf = self.close.bind(self);

/** Upper bound on console messages sent by one run; the host enforces its own too. */
const MAX_LOG_MESSAGES = 1000;
/** QuickJS's own stack limit: deep recursion ends as a RangeError, not a crash. */
const MAX_STACK_BYTES = 1024 * 1024;
/** Name of the script in QuickJS stack traces. */
const FILE = "script";

const PAGE = 64 * 1024;
/** Memory of a fresh engine; it grows page by page up to the run's limit. */
const INITIAL_MEMORY_BYTES = 16 * 1024 * 1024;

/**
 * One engine per memory limit. The cap is the WebAssembly memory's `maximum`:
 * QuickJS's own setMemoryLimit does not count large strings and typed arrays in
 * the prebuilt builds (quickjs-emscripten issues #255, #271), while a memory
 * that cannot grow makes every allocation past the cap fail inside the engine,
 * which throws "out of memory" to the script.
 */
const engines = new Map<number, Promise<QuickJSWASMModule>>();

function engine(limitBytes: number): Promise<QuickJSWASMModule> {
  let e = engines.get(limitBytes);
  if (!e) {
    const maximum = Math.max(1, Math.floor(limitBytes / PAGE));
    const wasmMemory = new WebAssembly.Memory({ initial: Math.min(maximum, INITIAL_MEMORY_BYTES / PAGE), maximum });
    e = newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory }));
    e.catch(() => undefined); // reported by the run that needs it
    engines.set(limitBytes, e);
  }
  return e;
}

/**
 * A worker whose WebAssembly memory grew past this is not reused: memory of a
 * WebAssembly instance never shrinks, and a fresh worker starts at a few MiB.
 */
const REUSE_MAX_MEMORY_BYTES = 64 * 1024 * 1024;

let busy = false;

// One run at a time. After a clean run the frame may hand this worker the next one
// (a new QuickJS runtime each time: runs share no JavaScript state).
self.onmessage = (e: MessageEvent) => {
  const msg = e.data as RunMessage | { t: "prepare"; memoryLimitBytes: number } | undefined;
  // The frame starts a spare worker's engine before its run arrives.
  if (msg?.t === "prepare") {
    if (Number.isSafeInteger(msg.memoryLimitBytes) && msg.memoryLimitBytes > 0) void engine(msg.memoryLimitBytes).catch(() => undefined);
    return;
  }
  const port = e.ports[0];
  if (busy || !port || msg?.t !== "run") return;
  busy = true;
  void execute(msg, port).then((reusable) => {
    busy = false;
    if (!reusable) closeSelf();
  }, closeSelf);
};

/** Runs one script; resolves whether this worker may serve another run. */
async function execute(msg: RunMessage, port: MessagePort): Promise<boolean> {
  const post = (m: WorkerToHost) => port.postMessage(m);
  const isolation = isolationProblem();
  if (isolation) {
    post({ t: "done", ok: false, error: { name: "SandboxError", message: isolation } });
    return false;
  }
  let runtime: QuickJSRuntime;
  let module: QuickJSWASMModule;
  try {
    module = await engine(msg.memoryLimitBytes);
    runtime = module.newRuntime();
  } catch (err) {
    post({ t: "done", ok: false, error: { name: "SandboxError", message: `the script engine could not start: ${String(err)}` } });
    return false;
  }
  runtime.setMemoryLimit(msg.memoryLimitBytes);
  const memory = module.getWasmMemory();
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  // No interrupt handler: the deadline lives in the page (it pauses while the
  // person is asked about a host call) and ends the run by removing the frame.
  const vm = runtime.newContext();
  post({ t: "started" });
  const { done, cleanup } = await runIn(vm, runtime, msg, post, port, memory);
  port.onmessage = null;
  let reusable = false;
  // Reuse only after a clean end: freeing the runtime checks that nothing of the
  // script is left, and an out-of-memory run leaves the instance's memory grown.
  const oom = done.t === "done" && !done.ok && done.error.name === "MemoryLimitError";
  if (!oom && memory.buffer.byteLength <= REUSE_MAX_MEMORY_BYTES) {
    try {
      cleanup();
      vm.dispose();
      runtime.dispose();
      reusable = true;
    } catch {
      reusable = false;
    }
  }
  post(done.t === "done" ? { ...done, reusable } : done);
  port.close();
  return reusable;
}

interface RunEnd {
  /** The `done` message, posted by the caller once the engine is freed. */
  done: WorkerToHost;
  /** Releases the handles the run still holds. */
  cleanup: () => void;
}

function runIn(
  vm: QuickJSContext,
  runtime: QuickJSRuntime,
  msg: RunMessage,
  post: (m: WorkerToHost) => void,
  port: MessagePort,
  memory: WebAssembly.Memory,
): Promise<RunEnd> {
  return new Promise<RunEnd>((resolve) => {
    let finished = false;
    let hooks: QuickJSHandle | null = null;
    const cleanup = () => hooks?.dispose();
    const finish = (m: WorkerToHost) => {
      if (finished) return;
      finished = true;
      resolve({ done: m, cleanup });
    };
    const failWith = (error: WireError) => finish({ t: "done", ok: false, error: outOfMemory(error, msg.memoryLimitBytes) ?? error });

    let fn: QuickJSHandle;
    try {
      fn = compileScript(msg.code, (body) => {
        const r = vm.evalCode(wrapBody(body), FILE);
        if (r.error) {
          const e = vm.dump(r.error) as { name?: string; message?: string };
          r.error.dispose();
          throw Object.assign(new Error(String(e?.message)), { name: String(e?.name ?? "SyntaxError") });
        }
        return r.value;
      });
    } catch (err) {
      const e = err as Error;
      failWith({ name: e.name, message: e.message });
      return;
    }
    if (msg.mode === "check") {
      fn.dispose();
      finish({ t: "done", ok: true });
      return;
    }

    let logs = 0;
    /** Runs queued promise jobs; an engine-level failure (out of memory, interrupt) ends the run. */
    /** The engine itself failed (a trap, an abort): near the cap that is the cap. */
    const crashed = (err: unknown) => {
      const full = memory.buffer.byteLength + 4 * PAGE >= msg.memoryLimitBytes;
      failWith(full ? { name: "InternalError", message: "out of memory" } : { name: "EngineError", message: `the script engine failed: ${String(err)}` });
    };
    const drain = () => {
      if (finished) return;
      let r: ReturnType<QuickJSRuntime["executePendingJobs"]>;
      try {
        r = runtime.executePendingJobs();
      } catch (err) {
        crashed(err);
        return;
      }
      if (r.error) {
        const e = vm.dump(r.error) as WireError;
        r.error.dispose();
        failWith(engineError(e));
      }
    };
    const host = vm.newObject();
    vm.newNumber(msg.maxLogChars).consume((n) => vm.setProp(host, "maxLogChars", n));
    vm.newFunction("log", (level, text) => {
      if (logs++ < MAX_LOG_MESSAGES) post({ t: "log", level: vm.getString(level) as LogLevel, text: vm.getString(text) });
    }).consume((f) => vm.setProp(host, "log", f));
    vm.newFunction("done", (ok, json) => {
      const text = vm.typeof(json) === "string" ? vm.getString(json) : undefined;
      if (vm.getNumber(ok) || vm.dump(ok) === true) finish(resultMessage(text, msg.maxResultChars));
      else failWith(withScriptStack(JSON.parse(text ?? "{}") as WireError));
    }).consume((f) => vm.setProp(host, "done", f));

    {
      const factory = vm.unwrapResult(vm.evalCode(PRELUDE, "prelude"));
      hooks = vm.unwrapResult(vm.callFunction(factory, vm.undefined, host));
      factory.dispose();
    }
    /** Calls a prelude hook; arguments are made only while the run is live (the context may be gone after). */
    const callHook = (name: string, makeArgs: () => QuickJSHandle[]) => {
      if (finished || !hooks) return;
      let r: ReturnType<QuickJSContext["callFunction"]>;
      try {
        const args = makeArgs();
        const f = vm.getProp(hooks, name);
        r = vm.callFunction(f, vm.undefined, ...args);
        f.dispose();
        for (const a of args) a.dispose();
      } catch (err) {
        crashed(err);
        return;
      }
      if (r.error) {
        const e = vm.dump(r.error) as WireError;
        r.error.dispose();
        failWith(engineError(e));
      } else r.value.dispose();
      drain();
    };

    const pending = new Map<number, true>();
    port.onmessage = (e: MessageEvent) => {
      const m = e.data as HostToWorker;
      if (m?.t !== "reply" || !pending.delete(m.id)) return;
      if (m.ok) callHook("settle", () => [vm.newNumber(m.id), vm.true, m.value === undefined ? vm.undefined : vm.newString(JSON.stringify(m.value))]);
      else callHook("settle", () => [vm.newNumber(m.id), vm.false, vm.newString(JSON.stringify(m.error))]);
    };
    vm.newFunction("call", (id, method, argsJson) => {
      const n = vm.getNumber(id);
      pending.set(n, true);
      post({ t: "call", id: n, method: vm.getString(method) as RpcMethod, args: JSON.parse(vm.getString(argsJson)) as unknown[] });
    }).consume((f) => vm.setProp(host, "call", f));
    vm.newFunction("timer", (id, ms) => {
      const n = vm.getNumber(id);
      setTimeout(() => callHook("fire", () => [vm.newNumber(n)]), Math.max(0, vm.getNumber(ms)));
    }).consume((f) => vm.setProp(host, "timer", f));
    host.dispose();

    callHook("run", () => [fn, vm.newString(msg.paramsJson)]);
  });
}

/** Errors of the engine itself (not thrown by the script), e.g. out of memory. */
function engineError(e: WireError): WireError {
  return { name: String(e?.name ?? "Error"), message: String(e?.message ?? e) };
}

function outOfMemory(e: WireError, limit: number): WireError | null {
  if (!/out of memory/i.test(e.message)) return null;
  const mib = Math.round(limit / 1024 / 1024);
  return {
    name: "MemoryLimitError",
    code: "ENOMEM",
    message: `the script used more than its memory limit of ${mib} MiB and was stopped; work on smaller pieces (read and write files in parts) or keep less in memory`,
  };
}

function withScriptStack(e: WireError): WireError {
  const out: WireError = { name: e.name, message: e.message };
  if (e.code) out.code = e.code;
  const stack = scriptStack(e.stack, FILE, WRAPPER_LINES);
  if (stack) out.stack = stack;
  return out;
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

function resultMessage(json: string | undefined, maxChars: number): WorkerToHost {
  if (json === undefined) return { t: "done", ok: true }; // undefined, functions, symbols
  if (json.length > maxChars) {
    return { t: "done", ok: false, error: { name: "RangeError", message: `the script's return value is ${json.length} characters of JSON; the limit is ${maxChars}. Return less, or write it to a file with rtcAgent.fs.write.` } };
  }
  return { t: "done", ok: true, resultJson: json };
}
