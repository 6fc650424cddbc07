// Builds the end-to-end suite (test/e2e/*.ts, Node side) with esbuild and runs
// it. Usage: node test/e2e.mjs [name-filter]   (run `npm run build` first)
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "test/.build/e2e.mjs");
await build({
  entryPoints: [join(root, "test/e2e/main.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: out,
  external: ["playwright-core", "esbuild"],
  logLevel: "warning",
});
await import(pathToFileURL(out).href);
