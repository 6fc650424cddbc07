// Builds dist/: the SDK bundles (rtc-agent.js with the element, rtc-agent-headless.js
// without) and their chunks, their type declarations, the script sandbox page (boot
// script inlined, the worker inlined in it), headers.json (the HTTP headers the
// server must send with each file), tools.json and sizes.json.
// Usage: node build.mjs [--no-minify]
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

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

// 3. The SDK itself, ES modules that find sandbox.html next to themselves:
//    rtc-agent.js (the <rtc-agent> element and the headless API) and
//    rtc-agent-headless.js (no UI). Code both use and code loaded on first use
//    (syntax highlighting and its languages) is split into chunks next to them,
//    which they import by relative URL, so a page that loads both runs one copy.
const entries = { "rtc-agent": "src/index.ts", "rtc-agent-headless": "src/headless.ts", "rtc-agent-markdown": "src/markdown-entry.ts" };
const sdk = await build({
  ...common,
  entryPoints: Object.fromEntries(Object.entries(entries).map(([name, src]) => [name, join(root, src)])),
  format: "esm",
  outdir,
  splitting: true,
  chunkNames: "rtc-agent-[name]-[hash]",
  sourcemap: true,
  metafile: true,
  // `require` is undefined in a page: a dependency's dead CommonJS shim (the
  // tool-view bridge's) would otherwise keep a `require` call in the chunks,
  // which a host's bundler warns about or pulls its runtime in for.
  define: { __RTC_AGENT_VERSION__: JSON.stringify(pkg.version), require: "undefined" },
});
for (const f of sdk.outputFiles) await writeFile(f.path, f.contents);
const entryFiles = Object.keys(entries).flatMap((n) => [`${n}.js`, `${n}.js.map`]);
const chunks = sdk.outputFiles.map((f) => basename(f.path)).filter((n) => !entryFiles.includes(n));

// 3b. Type declarations: tsc writes one .d.ts per source file to dist/types/;
//     rtc-agent.d.ts and rtc-agent-headless.d.ts next to the bundles re-export
//     their entry's, so the server serves the types next to the code.
const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.types.json")], { stdio: "inherit" });
if (tsc.status !== 0) throw new Error(`tsc (declarations) failed with status ${tsc.status}`);
for (const [name, src] of Object.entries(entries)) {
  const target = `./types/${src.replace(/^src\//, "").replace(/\.ts$/, ".js")}`;
  await writeFile(join(outdir, `${name}.d.ts`), `// Types of ${name}.js (${src}).\nexport * from "${target}";\n`);
}
// Keep the declarations the entries reach: the others describe internals.
const declarations = [];
const reach = async (file) => {
  if (declarations.includes(file)) return;
  declarations.push(file);
  const text = await readFile(join(outdir, file), "utf8");
  for (const [, spec] of text.matchAll(/(?:from|import\()\s*"([^"]+)"/g)) {
    // Type-only packages the SDK depends on (Standard Schema, json-schema-to-ts) stay imports.
    if (!spec.startsWith(".") && Object.hasOwn(pkg.dependencies ?? {}, spec)) continue;
    if (!spec.startsWith(".")) throw new Error(`${file} imports ${spec}: the public types must not need a bundled package`);
    await reach(posix.join(posix.dirname(file), spec.replace(/\.js$/, ".d.ts")));
  }
};
for (const name of Object.keys(entries)) await reach(`${name}.d.ts`);
for (const f of await readdir(join(outdir, "types"), { recursive: true })) {
  const rel = `types/${f.split(sep).join("/")}`;
  if (rel.endsWith(".d.ts") && !declarations.includes(rel)) await rm(join(outdir, rel));
}

// 4. Headers per file. The server applies them verbatim (see README.md).
const common_headers = { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };
const headers = {
  ...Object.fromEntries(
    Object.keys(entries).flatMap((n) => [
      [
        `${n}.js`,
        {
          ...common_headers,
          "Content-Type": "text/javascript; charset=utf-8",
          // Host pages on other origins load the SDK as a module script, which is a CORS request.
          "Access-Control-Allow-Origin": "*",
          // Where tools that import by URL (Deno, editors) find the module's types.
          "X-TypeScript-Types": `./${n}.d.ts`,
        },
      ],
      [`${n}.js.map`, { ...common_headers, "Content-Type": "application/json", "Access-Control-Allow-Origin": "*" }],
    ]),
  ),
  // The type declarations, next to the bundles (types/… keeps the source layout).
  ...Object.fromEntries(declarations.map((n) => [n, { ...common_headers, "Content-Type": "application/typescript; charset=utf-8", "Access-Control-Allow-Origin": "*" }])),
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
//    from the same source as the bundle, so the server and the browser can be
//    checked to agree. The registry is bundled on its own and imported from a data
//    URL (the package's entries do not export it).
const registry = await build({ ...common, entryPoints: [join(root, "src/tools/registry.ts")], format: "esm", minify: false });
const { ToolRegistry } = await import(`data:text/javascript;base64,${Buffer.from(registry.outputFiles[0].contents).toString("base64")}`);
await writeFile(join(outdir, "tools.json"), JSON.stringify(new ToolRegistry().list(), null, 2) + "\n");

// 6. Sizes of the two entries with everything they load up front (not the chunks
//    loaded on first use), raw and gzipped: what a host pays for each.
const sizes = {};
for (const name of Object.keys(entries)) {
  const files = staticClosure(sdk.metafile, `${relative(process.cwd(), outdir).split(sep).join("/")}/${name}.js`);
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const body = await readFile(join(process.cwd(), f));
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  sizes[name] = { files: files.length, raw, gzip: gz };
}
await writeFile(join(outdir, "sizes.json"), JSON.stringify(sizes, null, 2) + "\n");

/** The output files an entry imports statically, itself included (metafile paths, relative to the cwd). */
function staticClosure(meta, entry) {
  const seen = new Set();
  const visit = (p) => {
    if (seen.has(p)) return;
    seen.add(p);
    for (const imp of meta.outputs[p]?.imports ?? []) if (imp.kind === "import-statement") visit(imp.path);
  };
  visit(entry);
  return [...seen];
}

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const summary = Object.entries(sizes).map(([n, z]) => `${n}.js ${kb(z.raw)} (gzip ${kb(z.gzip)})`).join(", ");
console.log(`built ${outdir} in ${Date.now() - started} ms: ${summary}`);
