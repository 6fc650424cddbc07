// Static test server: serves dist/ under /sdk/ with the headers from
// dist/headers.json, as the Go server must (see README.md), the test page under /test/, and a /probe endpoint that
// records every request so tests can prove a script's network attempt never left
// the browser.
import { build } from "esbuild";
import { createServer } from "node:http";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { chromium } from "playwright-core";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The name the internal test module is served under, next to the real bundle. */
export const INTERNAL_SDK = "rtc-agent-internal.js";

/**
 * Bundles the SDK's internals that the in-page tests use (test/browser/sdk.ts) the
 * way build.mjs bundles the SDK, to `outfile`. The package does not export them.
 */
export async function buildInternalSdk(outfile) {
  await build({
    entryPoints: [join(root, "test/browser/sdk.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    legalComments: "none",
    outfile,
    logLevel: "warning",
  });
}

/** Debian's Chromium, headless, as every browser test and bench runs it. */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}

/**
 * Bundles an in-page suite (`entry`, with `define`) to buildDir/tests.js beside
 * the test page and the SDK's internals, and serves them with distDir
 * (startServer).
 */
export async function serveInPage({ entry, buildDir, distDir, define }) {
  await mkdir(buildDir, { recursive: true });
  await build({ entryPoints: [entry], bundle: true, format: "esm", target: "es2022", outfile: join(buildDir, "tests.js"), define, logLevel: "warning" });
  await copyFile(join(root, "test/page.html"), join(buildDir, "index.html"));
  const internalSdk = join(buildDir, "sdk-internal.js");
  await buildInternalSdk(internalSdk);
  return startServer({ distDir, testDir: buildDir, internalSdk });
}

const TYPES = { ".js": "text/javascript; charset=utf-8", ".html": "text/html; charset=utf-8" };

/**
 * Starts the server on 127.0.0.1 with a random port. `internalSdk`: a file built
 * by buildInternalSdk, served at /sdk/rtc-agent-internal.js. The test page is meant to be
 * opened as http://localhost:<port>/test/ so that the host page and the SDK
 * (http://127.0.0.1:<port>/sdk/) are different sites, as in production.
 */
export async function startServer({ distDir, testDir, internalSdk }) {
  const probes = [];
  const server = createServer(async (req, res) => {
    try {
      await handle(req, res);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  let port = 0;
  const sdkOrigin = () => `http://127.0.0.1:${port}`;
  const hostOrigin = () => `http://localhost:${port}`;

  async function handle(req, res) {
    const url = new URL(req.url, `http://${req.headers.host}`);
    const path = url.pathname;
    if (path.startsWith("/probe")) {
      if (path !== "/probe-log") {
        probes.push({ method: req.method, url: req.url, host: req.headers.host });
        return res.writeHead(204, { "Access-Control-Allow-Origin": "*" }).end();
      }
      return send(res, 200, JSON.stringify(probes), { "Content-Type": "application/json" });
    }
    if (path.startsWith("/sdk-bare/")) {
      // The SDK's code without its sandbox page next to it, as in a host's own bundle.
      const manifest = JSON.parse(await readFile(join(distDir, "headers.json"), "utf8"));
      if (internalSdk && path === `/sdk-bare/${INTERNAL_SDK}`) return send(res, 200, await readFile(internalSdk), manifest["rtc-agent.js"]);
      return send(res, 404, "not found", { "Content-Type": "text/plain" });
    }
    if (path.startsWith("/sdk/") || path.startsWith("/sdk-nocsp/")) {
      const withCsp = path.startsWith("/sdk/");
      const name = path.slice(path.indexOf("/", 1) + 1);
      // Exactly the production rule: serve what headers.json lists, with its headers.
      const manifest = JSON.parse(await readFile(join(distDir, "headers.json"), "utf8"));
      // The internal test module, with the headers of the real bundle.
      if (internalSdk && name === INTERNAL_SDK) return send(res, 200, await readFile(internalSdk), manifest["rtc-agent.js"]);
      if (!Object.hasOwn(manifest, name)) return send(res, 404, "not found");
      const headers = { ...manifest[name] };
      if (!withCsp) delete headers["Content-Security-Policy"]; // the misconfiguration the SDK must refuse
      return send(res, 200, await readFile(join(distDir, name)), headers);
    }
    if (path === "/test/" || path.startsWith("/test/")) {
      const rel = path === "/test/" ? "index.html" : normalize(path.slice("/test/".length));
      if (rel.startsWith("..")) return send(res, 403, "forbidden");
      const headers = {
        "Content-Type": TYPES[extname(rel)] ?? "application/octet-stream",
        "Cache-Control": "no-cache",
        // A strict host CSP, as a careful site would have: the SDK must work with only
        // the sandbox origin added to frame-src (no blob:, no unsafe-eval).
        "Content-Security-Policy": `default-src 'self'; script-src 'self' ${sdkOrigin()}; connect-src 'self'; frame-src ${sdkOrigin()}; style-src 'self' 'unsafe-inline'`,
      };
      return send(res, 200, await readFile(join(testDir, rel)), headers);
    }
    if (path === "/favicon.ico") return send(res, 204, "");
    send(res, 404, "not found");
  }

  server.on("upgrade", (req, socket) => {
    probes.push({ method: "UPGRADE", url: req.url, host: req.headers.host });
    socket.destroy();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = server.address().port;
  return {
    port,
    sdkOrigin: sdkOrigin(),
    hostOrigin: hostOrigin(),
    probes,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, headers).end(body);
}
