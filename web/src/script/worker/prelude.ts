// JavaScript evaluated inside the QuickJS context before the script: it builds
// `console`, `rtcAgent`, `setTimeout` and the network stubs out of the few host
// functions the worker exposes (`host.log`, `host.call`, `host.timer`,
// `host.done`), so values cross the WASM boundary only as strings.

/** Evaluates to a function taking the host object and returning the hooks the worker calls. */
export const PRELUDE = String.raw`(function (host) {
  "use strict";
  const pending = new Map();
  const timers = new Map();
  let nextCall = 1;
  let nextTimer = 1;
  const maxChars = host.maxLogChars;
  const fmt = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.name + ": " + v.message;
    if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
    try { const j = JSON.stringify(v); return j === undefined ? String(v) : j; } catch (e) { return String(v); }
  };
  const emit = (level) => (...args) => {
    let text = args.map(fmt).join(" ");
    if (text.length > maxChars) text = text.slice(0, maxChars) + "… [" + (text.length - maxChars) + " more characters]";
    host.log(level, text);
  };
  const consoleApi = Object.freeze({ log: emit("log"), info: emit("info"), warn: emit("warn"), error: emit("error"), debug: emit("debug") });
  const rpc = (method, args) => new Promise((resolve, reject) => {
    const id = nextCall++;
    pending.set(id, { resolve, reject });
    host.call(id, method, JSON.stringify(args));
  });
  const fs = Object.freeze({
    read: (path) => rpc("fs.read", [path]),
    write: (path, content) => rpc("fs.write", [path, content]),
    ls: (path = "/") => rpc("fs.ls", [path]),
    stat: (path) => rpc("fs.stat", [path]),
    exists: (path) => rpc("fs.exists", [path]),
    mkdir: (path) => rpc("fs.mkdir", [path]),
    remove: (path) => rpc("fs.remove", [path]),
    rename: (from, to) => rpc("fs.rename", [from, to]),
    walk: (path = "/") => rpc("fs.walk", [path]),
  });
  const api = Object.freeze({ fs, call: (name, args) => rpc("call", [name, args]) });
  const message = "network access is not available to scripts; use rtcAgent.fs.* for files and rtcAgent.call(name, args) for the host's functions";
  for (const name of ["fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "WebTransport", "EventSource", "importScripts", "Worker", "SharedWorker"]) {
    Object.defineProperty(globalThis, name, { value: function blocked() { throw new Error(name + " is blocked: " + message); } });
  }
  globalThis.console = consoleApi;
  globalThis.setTimeout = (fn, ms, ...args) => {
    const id = nextTimer++;
    timers.set(id, () => fn(...args));
    host.timer(id, Number(ms) || 0);
    return id;
  };
  globalThis.clearTimeout = (id) => { timers.delete(id); };
  const wire = (e) => {
    if (!(e instanceof Error)) return { name: "Error", message: "script threw a non-Error value: " + fmt(e) };
    const w = { name: String(e.name), message: String(e.message) };
    if (typeof e.code === "string") w.code = e.code;
    if (typeof e.stack === "string") w.stack = e.stack;
    return w;
  };
  return {
    settle(id, ok, json) {
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      if (ok) { p.resolve(json === undefined ? undefined : JSON.parse(json)); return; }
      const w = JSON.parse(json);
      const err = new Error(w.message);
      if (w.name) err.name = w.name;
      if (w.code) err.code = w.code;
      p.reject(err);
    },
    fire(id) {
      const f = timers.get(id);
      if (!f) return;
      timers.delete(id);
      f();
    },
    run(fn, paramsJson) {
      Promise.resolve()
        .then(() => fn(api, JSON.parse(paramsJson), consoleApi))
        .then((value) => {
          let json;
          try { json = JSON.stringify(value); } catch (e) {
            host.done(false, JSON.stringify({ name: "TypeError", message: "the script's return value is not JSON-serialisable: " + e.message }));
            return;
          }
          host.done(true, json);
        }, (e) => host.done(false, JSON.stringify(wire(e))));
    },
  };
})`;
