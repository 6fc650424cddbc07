// Bundles the example (app.ts and @ag-ui/client, both from web/'s packages)
// to a folder, beside index.html and app.css. Usage: node build.mjs [outdir]
// (after `npm ci` in web/).
import { copyFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const web = join(here, "../../web");
const { build } = createRequire(join(web, "package.json"))("esbuild");
const out = process.argv[2] ?? join(here, "dist");
await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(here, "app.ts")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  outfile: join(out, "app.js"),
  nodePaths: [join(web, "node_modules")],
  logLevel: "warning",
});
await Promise.all(["index.html", "app.css"].map((f) => copyFile(join(here, f), join(out, f))));
