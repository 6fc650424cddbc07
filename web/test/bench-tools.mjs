// File tool benchmark in headless Chromium: grep (literal, regex, ignore-case),
// find, ls of 1,000 entries, 1 MiB write and read. Prints a table; no assertions.
// Usage: node test/bench-tools.mjs [distDir]   (run `npm run build` first). The
// tools are bundled from this checkout (test/browser/sdk.ts); distDir supplies the
// sandbox page, so to compare before and after a change run it in both checkouts.
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { buildInternalSdk, startServer } from "./server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const distDir = resolve(process.argv[2] ?? join(root, "dist"));
const buildDir = join(root, "test/.build/bench");
await mkdir(buildDir, { recursive: true });
await build({ entryPoints: [join(root, "test/bench/tools.ts")], bundle: true, format: "esm", target: "es2022", outfile: join(buildDir, "tests.js"), logLevel: "warning" });
await copyFile(join(root, "test/page.html"), join(buildDir, "index.html"));
const internalSdk = join(buildDir, "sdk-internal.js");
await buildInternalSdk(internalSdk);
const server = await startServer({ distDir, testDir: buildDir, internalSdk });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
try {
  const page = await browser.newPage();
  page.on("pageerror", (err) => console.log(`[page error] ${err.message}`));
  const done = new Promise((res) => page.exposeFunction("__benchDone", res));
  await page.goto(`${server.hostOrigin}/test/?sdkOrigin=${encodeURIComponent(server.sdkOrigin)}`);
  const out = await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error("bench did not finish in 300 s")), 300_000))]);
  console.log(`dist: ${distDir}`);
  console.log(out);
} finally {
  await browser.close();
  await server.close();
}
