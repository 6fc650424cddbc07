// Builds @rtc-agent/react (dist/index.js; its declarations come from
// `tsc -p react/tsconfig.types.json`) and the React example shop
// (../../examples/shop) into ../dist/examples/shop/, which the server serves at
// /examples/shop/. React and @rtc-agent/web stay imports of the package; the
// example bundles React, this package from source and the SDK as built in dist/
// (as an integrator's build bundles the installed package), with its chunks.
// Usage (after web's own build): node react/build.mjs [--no-minify]
import { build } from "esbuild";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, extname, join, relative, resolve } from "node:path";
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
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
// @rtc-agent/web as its package.json exports it: the built entries in dist/.
const sdkEntries = {
  "@rtc-agent/web": "rtc-agent.js",
  "@rtc-agent/web/element": "rtc-agent.js",
  "@rtc-agent/web/headless": "rtc-agent-headless.js",
  "@rtc-agent/web/markdown": "rtc-agent-markdown.js",
};
const shop = await build({
  entryPoints: { app: join(example, "src/main.tsx") },
  bundle: true,
  splitting: true,
  metafile: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  outdir: out,
  minify,
  sourcemap: true,
  jsx: "automatic",
  alias: { "@rtc-agent/react": join(root, "src/index.ts") },
  nodePaths: [join(web, "node_modules")],
  plugins: [
    {
      name: "rtc-agent-web",
      setup(b) {
        b.onResolve({ filter: /^@rtc-agent\/web(\/|$)/ }, (args) => {
          const file = sdkEntries[args.path];
          if (!file) return { errors: [{ text: `${args.path} is not an export of @rtc-agent/web` }] };
          return { path: join(web, "dist", file) };
        });
      },
    },
  ],
  define: { "process.env.NODE_ENV": JSON.stringify(minify ? "production" : "development") },
  logLevel: "warning",
  // The SDK's chunks import each other for order only; its package.json says they
  // have no side effects (a bundler is silent about that inside node_modules).
  logOverride: { "ignored-bare-import": "silent" },
  legalComments: "none",
});
await copyFile(join(example, "index.html"), join(out, "index.html"));
await copyFile(join(example, "styles.css"), join(out, "styles.css"));

// 3. Its files and their headers, in a list of its own (examples/headers.json,
//    paths relative to examples/) so the SDK package's headers.json stays the SDK's.
const base = { "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };
const types = { ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".map": "application/json" };
const files = ["index.html", "styles.css", ...Object.keys(shop.metafile.outputs).map((f) => relative(out, resolve(web, f)))].sort();
// The page is served from the server's own origin, so the README's host CSP reads
// 'self' for the server; nothing inline, nothing from anywhere else.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const headers = Object.fromEntries(
  files.map((name) => [`shop/${name}`, { ...base, "Content-Type": types[extname(name)], ...(name.endsWith(".html") ? { "Content-Security-Policy": csp } : {}) }]),
);
await writeFile(join(web, "dist/examples/headers.json"), JSON.stringify(headers, null, 2) + "\n");

console.log(`built @rtc-agent/react and examples/shop in ${Date.now() - started} ms`);
