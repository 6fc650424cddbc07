// Builds @rtc-agent/react (dist/index.js; its declarations come from
// `tsc -p react/tsconfig.types.json`) and the React example shop
// (../../examples/shop) into ../dist/examples/shop/, which the server serves at
// /examples/shop/. React and @rtc-agent/web stay imports of the package; the
// example bundles React and this package from source and imports the SDK by name,
// mapped to /sdk/rtc-agent.js by its page's import map.
// Usage (after web's own build): node react/build.mjs [--no-minify]
import { build } from "esbuild";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const web = join(root, "..");
const minify = !process.argv.includes("--no-minify");
const started = Date.now();

// 1. The package: one ES module, its peers left as imports.
await rm(join(root, "dist"), { recursive: true, force: true });
await build({
  entryPoints: { index: join(root, "src/index.ts") },
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  outdir: join(root, "dist"),
  sourcemap: true,
  external: ["react", "react/*", "react-dom", "react-dom/*", "@rtc-agent/web", "@rtc-agent/web/*"],
  logLevel: "warning",
  legalComments: "none",
});

// 2. The example shop, served by the Go server from web/dist.
const example = join(web, "../examples/shop");
const out = join(web, "dist/examples/shop");
await mkdir(out, { recursive: true });
await build({
  entryPoints: { app: join(example, "src/main.tsx") },
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  outdir: out,
  minify,
  sourcemap: true,
  jsx: "automatic",
  alias: { "@rtc-agent/react": join(root, "src/index.ts") },
  nodePaths: [join(web, "node_modules")],
  external: ["@rtc-agent/web", "@rtc-agent/web/*"],
  define: { "process.env.NODE_ENV": JSON.stringify(minify ? "production" : "development") },
  logLevel: "warning",
  legalComments: "none",
});
await copyFile(join(example, "index.html"), join(out, "index.html"));
await copyFile(join(example, "styles.css"), join(out, "styles.css"));

// 3. Its files and their headers, in a list of its own (examples/headers.json,
//    paths relative to examples/) so the SDK package's headers.json stays the SDK's.
const base = { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };
const types = { "index.html": "text/html; charset=utf-8", "styles.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8", "app.js.map": "application/json" };
const headers = Object.fromEntries(Object.entries(types).map(([name, type]) => [`shop/${name}`, { ...base, "Content-Type": type }]));
await writeFile(join(web, "dist/examples/headers.json"), JSON.stringify(headers, null, 2) + "\n");

console.log(`built @rtc-agent/react and examples/shop in ${Date.now() - started} ms`);
