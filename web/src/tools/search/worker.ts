// The search worker: started by the sandbox frame from a blob URL (so it runs in
// the frame's process and under its CSP), it answers grep and find requests on the
// port the page handed over. The page removes its frame when a request overruns
// its deadline and starts a fresh one.

import { findMatches, grepFiles } from "./engine.js";
import type { SearchReply, SearchRequest } from "./protocol.js";

declare const self: { onmessage: ((e: MessageEvent) => void) | null };

/** Contents the page sent, by path (see protocol.ts). */
const kept = new Map<string, { key: string; content: string }>();

function grep(m: Extract<SearchRequest, { t: "grep" }>) {
  const files = m.req.files.map(({ path, key }) => {
    const k = kept.get(path);
    if (!k || k.key !== key) throw new Error(`search worker has no content for ${path}`);
    return { path, content: k.content };
  });
  return grepFiles({ ...m.req, files });
}

self.onmessage = (e: MessageEvent) => {
  const port = e.ports[0];
  if (!port) return;
  self.onmessage = null; // one port per worker
  port.onmessage = (ev: MessageEvent) => {
    const m = ev.data as SearchRequest;
    if (m.t === "put") {
      for (const f of m.files) kept.set(f.path, { key: f.key, content: f.content });
      return;
    }
    if (m.t === "drop") {
      for (const p of m.paths) kept.delete(p);
      return;
    }
    let reply: SearchReply;
    try {
      const value = m.t === "grep" ? grep(m) : findMatches(m.req);
      reply = { t: "result", id: m.id, ok: true, value };
    } catch (err) {
      const e2 = err instanceof Error ? err : new Error(String(err));
      reply = { t: "result", id: m.id, ok: false, name: e2.name, message: e2.message };
    }
    port.postMessage(reply);
  };
  port.postMessage({ t: "ready" } satisfies SearchReply);
};
