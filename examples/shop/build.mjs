// Builds the shop into dist/: app.js (the app, React, @rtc-agent/react and
// @rtc-agent/web) and its chunks (the SDK's chat UI, loaded when <AgentChat/>
// first mounts; code loaded on first use) next to index.html and styles.css. One
// script file and no inline script, so the host-site CSP of the SDK's README
// allows the page; the script sandbox comes from the RTC Agent server (sandboxUrl
// in src/token.ts).
// Usage: node build.mjs [outdir]
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(root, "dist"));
await mkdir(out, { recursive: true });
await build({
  entryPoints: { app: join(root, "src/main.tsx") },
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2022",
  outdir: out,
  minify: true,
  sourcemap: true,
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
for (const f of ["index.html", "styles.css"]) await copyFile(join(root, f), join(out, f));
console.log(`built ${out}`);
