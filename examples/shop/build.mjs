// Builds the shop into dist/: app.js (the app, React and @rtc-agent/react) next to
// index.html and styles.css. @rtc-agent/web is not bundled: index.html's import map
// loads it from the RTC Agent server, next to the sandbox page it needs.
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
  format: "esm",
  target: "es2022",
  outdir: out,
  minify: true,
  sourcemap: true,
  jsx: "automatic",
  external: ["@rtc-agent/web", "@rtc-agent/web/*"],
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
for (const f of ["index.html", "styles.css"]) await copyFile(join(root, f), join(out, f));
console.log(`built ${out}`);
