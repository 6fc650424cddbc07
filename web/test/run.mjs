// Browser test runner: builds the in-page suite, serves dist/ and the test page,
// runs the suite in Debian's Chromium through playwright-core and prints one line
// per test. Exits non-zero on any failure.
// Usage: node test/run.mjs [name-filter]    (run `npm run build` first)
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, serveInPage } from "./server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const distDir = join(root, "dist");
const buildDir = join(root, "test/.build");
const filter = process.argv[2] ?? "";
const SUITE_TIMEOUT_MS = 300_000;

async function main() {
  const started = Date.now();
  try {
    await stat(join(distDir, "rtc-agent.js"));
  } catch {
    throw new Error("dist/rtc-agent.js is missing: run `npm run build` first");
  }
  const server = await serveInPage({ entry: join(root, "test/browser/main.ts"), buildDir, distDir });
  const browser = await launchChromium();
  let passed = 0;
  let failed = 0;
  try {
    // Clipboard access, so copy buttons can be checked by reading the clipboard back.
    const context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
    const page = await context.newPage();
    page.on("pageerror", (err) => console.log(`  [page error] ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error") console.log(`  [console.error] ${msg.text()}`);
      // Figures a test prints for the reader (timings, memory), never asserted on.
      else if (msg.type() === "info" && msg.text().startsWith("[note] ")) console.log(`     ${msg.text().slice(7)}`);
    });
    const done = new Promise((resolve) => page.exposeFunction("__rtcDone", resolve));
    await page.exposeFunction("__rtcRendererMemory", () => rendererMemory(process.pid));
    await page.exposeFunction("__rtcReport", (r) => {
      if (r.ok) passed++;
      else failed++;
      console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name} (${r.ms} ms)`);
      if (!r.ok) console.log(`     ${r.error.replace(/\n/g, "\n     ")}`);
    });
    const url = `${server.hostOrigin}/test/?sdkOrigin=${encodeURIComponent(server.sdkOrigin)}${filter ? `&filter=${encodeURIComponent(filter)}` : ""}`;
    await page.goto(url);
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`suite did not finish within ${SUITE_TIMEOUT_MS} ms`)), SUITE_TIMEOUT_MS);
    });
    await Promise.race([done, timeout]);
    clearTimeout(timer);
  } finally {
    await browser.close();
    await server.close();
  }
  if (passed + failed === 0) {
    console.log("no test ran");
    failed = 1;
  }
  console.log(`\nbrowser tests finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

/**
 * Resident and peak resident memory (VmRSS, VmHWM in KiB) of every Chromium
 * renderer process started by this runner (descendants of `rootPid`), so a test
 * can print what the sandbox frame's process used.
 */
async function rendererMemory(rootPid) {
  const parent = new Map();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const st = await readFile(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const isOurs = (pid) => {
    for (let p = pid, n = 0; p > 1 && n < 20; p = parent.get(p) ?? 0, n++) if (p === rootPid) return true;
    return false;
  };
  const out = [];
  for (const pid of parent.keys()) {
    if (!isOurs(pid)) continue;
    try {
      const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("--type=renderer")) continue;
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      out.push({ pid, rssKiB: kb("VmRSS"), peakKiB: kb("VmHWM") });
    } catch {
      // gone
    }
  }
  return out;
}

main().catch((err) => {
  console.error(err);
  console.log("0 passed, 1 failed");
  process.exitCode = 1;
});
