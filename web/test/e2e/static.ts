// A static site for tests of built apps: another origin (localhost) than the Go
// server (127.0.0.1). Each mount serves a directory under a URL prefix; a mount
// with a manifest (an SDK's headers.json) serves only the files it lists, with
// their headers. Closed after the test.

import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { defer } from "./harness.js";

export interface Mount {
  prefix: string;
  dir: string;
  manifest?: Record<string, Record<string, string>>;
  /** Headers added to every HTML page of the mount (e.g. a Content-Security-Policy). */
  headers?: Record<string, string>;
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".map": "application/json" };

/** Starts the site; returns its origin. */
export async function staticSite(mounts: Mount[]): Promise<string> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const m = mounts.filter((x) => path.startsWith(x.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0];
      try {
        if (!m) return res.writeHead(404).end();
        const rest = path.slice(m.prefix.length);
        const name = normalize(rest === "" ? "index.html" : rest);
        if (name.startsWith("..")) return res.writeHead(404).end();
        if (m.manifest) {
          if (!Object.hasOwn(m.manifest, name)) return res.writeHead(404).end();
          const body = await readFile(join(m.dir, name));
          return res.writeHead(200, m.manifest[name]).end(body);
        }
        const body = await readFile(join(m.dir, name));
        const page = extname(name) === ".html" ? (m.headers ?? {}) : {};
        res.writeHead(200, { "Content-Type": TYPES[extname(name)] ?? "application/octet-stream", "Cache-Control": "no-cache", ...page }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  defer(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://localhost:${(server.address() as { port: number }).port}`;
}

/** A mount of an SDK's dist/ at /sdk/, serving what its headers.json lists. */
export async function sdkMount(dist: string): Promise<Mount> {
  return { prefix: "/sdk/", dir: dist, manifest: JSON.parse(await readFile(join(dist, "headers.json"), "utf8")) as Record<string, Record<string, string>> };
}
