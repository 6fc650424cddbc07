// Builds dist/: the SDK bundle, the script sandbox page (boot script inlined, the
// worker inlined in it) and headers.json, the HTTP headers the server must send
// with each file. Usage: node build.mjs [--no-minify]
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const outdir = join(root, "dist");
const minify = !process.argv.includes("--no-minify");
const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8"));

const common = { bundle: true, minify, target: "es2022", logLevel: "warning", legalComments: "none", write: false };
const started = Date.now();
// Empty dist/ but keep .gitkeep (tracked, so Go's go:embed of dist/ works unbuilt).
await mkdir(outdir, { recursive: true });
for (const name of await readdir(outdir)) {
  if (name !== ".gitkeep") await rm(join(outdir, name), { recursive: true, force: true });
}
await writeFile(join(outdir, ".gitkeep"), "");

// 1. The per-run worker, as text: the sandbox frame starts it from a blob URL so it
//    inherits the frame's CSP and opaque origin.
const worker = await build({ ...common, entryPoints: [join(root, "src/script/worker/worker.ts")], format: "iife" });
const workerSource = worker.outputFiles[0].text;

// 1b. The grep/find worker, started by the same frame (frames of role "search").
const search = await build({ ...common, entryPoints: [join(root, "src/tools/search/worker.ts")], format: "iife" });
const searchSource = search.outputFiles[0].text;

// 2. The frame's boot script, with the worker text inlined, inlined in turn into
//    sandbox.html. Its hash is the only script source the sandbox CSP allows.
const boot = await build({
  ...common,
  entryPoints: [join(root, "src/script/frame/boot.ts")],
  format: "iife",
  define: { __RTC_WORKER_SOURCE__: JSON.stringify(workerSource), __RTC_SEARCH_WORKER_SOURCE__: JSON.stringify(searchSource) },
});
const bootSource = boot.outputFiles[0].text.trimEnd();
if (/<\/script/i.test(bootSource)) throw new Error("boot script contains '</script' and cannot be inlined");
const bootHash = createHash("sha256").update(bootSource, "utf8").digest("base64");
const template = await readFile(join(root, "src/script/frame/sandbox.html"), "utf8");
await writeFile(join(outdir, "sandbox.html"), template.replace("/*BOOT*/", () => bootSource));

// 3. The SDK itself, an ES module that finds sandbox.html next to itself. Code
//    loaded on first use (syntax highlighting and its languages) is split into
//    chunks next to it, which the module imports by relative URL.
const sdk = await build({
  ...common,
  entryPoints: { "rtc-agent": join(root, "src/index.ts") },
  format: "esm",
  outdir,
  splitting: true,
  chunkNames: "rtc-agent-[name]-[hash]",
  sourcemap: true,
  define: { __RTC_AGENT_VERSION__: JSON.stringify(pkg.version) },
});
for (const f of sdk.outputFiles) await writeFile(f.path, f.contents);
const chunks = sdk.outputFiles.map((f) => basename(f.path)).filter((n) => n !== "rtc-agent.js" && n !== "rtc-agent.js.map");

// 4. Headers per file. The server applies them verbatim (see README.md).
const common_headers = { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };
const headers = {
  "rtc-agent.js": {
    ...common_headers,
    "Content-Type": "text/javascript; charset=utf-8",
    // Host pages on other origins load the SDK as a module script, which is a CORS request.
    "Access-Control-Allow-Origin": "*",
  },
  "rtc-agent.js.map": { ...common_headers, "Content-Type": "application/json", "Access-Control-Allow-Origin": "*" },
  // The lazily loaded chunks: module scripts of the same cross-origin SDK.
  ...Object.fromEntries(
    chunks.map((n) => [
      n,
      n.endsWith(".map")
        ? { ...common_headers, "Content-Type": "application/json", "Access-Control-Allow-Origin": "*" }
        : { ...common_headers, "Content-Type": "text/javascript; charset=utf-8", "Access-Control-Allow-Origin": "*" },
    ]),
  ),
  "sandbox.html": {
    ...common_headers,
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": [
      "sandbox allow-scripts", // opaque origin even if framed without the sandbox attribute
      "default-src 'none'", // no fetch/XHR/WebSocket/EventSource/fonts/images anywhere
      // The boot script, the blob workers, and compiling the script engine's
      // WebAssembly ('wasm-unsafe-eval' allows WebAssembly only, not eval).
      `script-src 'sha256-${bootHash}' blob: 'wasm-unsafe-eval'`,
      "worker-src blob:",
      "form-action 'none'",
      "base-uri 'none'",
    ].join("; "),
    "Referrer-Policy": "no-referrer",
  },
};
await writeFile(join(outdir, "headers.json"), JSON.stringify(headers, null, 2) + "\n");

// 5. The built-in tool specs (name, kind, description, JSON schema) as JSON, taken
//    from the bundle itself, so the server and the browser can be checked to agree.
//    dist/ holds ES modules (package.json "type": "module"); a query string makes
//    Node load this build, not one it imported before in the same process.
const { ToolRegistry } = await import(`${pathToFileURL(join(outdir, "rtc-agent.js")).href}?build=${started}`);
await writeFile(join(outdir, "tools.json"), JSON.stringify(new ToolRegistry().list(), null, 2) + "\n");

console.log(`built ${outdir} in ${Date.now() - started} ms`);
