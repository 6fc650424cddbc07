// File tool benchmark in headless Chromium: grep (literal, regex, ignore-case),
// find, ls of 1,000 entries, 1 MiB write and read, and the first grep after a page
// load step by step. Three page loads on one namespace (setup, tools, breakdown;
// see test/bench/tools.ts), so the first grep of a page is timed as a person meets
// it. Prints a table; no assertions. `npm run bench` runs it after the rendering
// scenarios.
// Usage: node test/bench-tools.mjs [distDir] [--smoke]   (run `npm run build` first).
// The tools are bundled from this checkout (test/browser/sdk.ts); distDir supplies
// the sandbox page, so to compare before and after a change run it in both checkouts.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, serveInPage } from "./server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PHASE_TIMEOUT_MS = 300_000;

/** Runs the benchmark against `distDir`'s sandbox page and returns its report. */
export async function runToolsBench({ distDir = join(root, "dist"), smoke = false } = {}) {
  const server = await serveInPage({
    entry: join(root, "test/bench/tools.ts"),
    buildDir: join(root, "test/.build/bench-tools"),
    distDir,
    define: { __RTC_BENCH_SCALE__: smoke ? "0.1" : "1" },
  });
  const browser = await launchChromium();
  const out = [`dist: ${distDir}`];
  try {
    const page = await browser.newPage();
    page.on("pageerror", (err) => out.push(`[page error] ${err.message}`));
    let settle = () => undefined;
    await page.exposeFunction("__benchDone", (s) => settle(s));
    const device = `bench-${Date.now()}`;
    for (const phase of ["setup", "tools", "breakdown", "cleanup"]) {
      const done = new Promise((res) => (settle = res));
      await page.goto(`${server.hostOrigin}/test/?sdkOrigin=${encodeURIComponent(server.sdkOrigin)}&device=${device}&phase=${phase}`);
      let timer;
      const late = new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`${phase} did not finish in ${PHASE_TIMEOUT_MS / 1000} s`)), PHASE_TIMEOUT_MS)));
      // The timer is cleared, or it would keep the process alive for its whole length.
      const report = await Promise.race([done, late]).finally(() => clearTimeout(timer));
      if (phase !== "cleanup") out.push(report);
      if (report.startsWith("bench failed")) throw new Error(report);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dist = args.find((a) => !a.startsWith("--"));
  console.log(await runToolsBench({ distDir: dist ? resolve(dist) : undefined, smoke: args.includes("--smoke") }));
}
