// Rendering benchmark: streams answers into the real chat UI in Chromium (and
// feeds a step of 500 tool calls, opens the Files panel on 20,000 files) and
// prints, per scenario, the longest main-thread task and the main-thread time
// spent (from a Chromium trace and the CDP Performance domain), in wall time and
// in thread CPU time (the fair figure when other processes compete for the CPU). It prints figures
// and asserts none: targets live in docs/benchmarks.md, not in a timed check.
// Then it runs the file tools benchmark (test/bench-tools.mjs) unless the filter
// names a rendering scenario ("grep" or "files" runs only that).
// Usage: node test/bench.mjs [name-filter] [--smoke]   (run `npm run build` first)
//   --smoke runs every scenario on a tenth of its input, to check it completes.
//   BENCH_LOG=1 prints the page's console; BENCH_PROFILE=1 (or cpu) where the time goes;
//   BENCH_TRACE=/tmp/x writes each scenario's trace to /tmp/x-<n>.json.
import { build } from "esbuild";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runToolsBench } from "./bench-tools.mjs";
import { launchChromium, startServer } from "./server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const buildDir = join(root, "test/.build/bench");
const args = process.argv.slice(2);
const smoke = args.includes("--smoke");
const filter = args.find((a) => !a.startsWith("--")) ?? "";
const SCENARIO_TIMEOUT_MS = 180_000;

await mkdir(buildDir, { recursive: true });
await build({
  entryPoints: [join(root, "test/bench/main.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  outdir: buildDir,
  entryNames: "bench",
  splitting: true,
  minify: !process.env.BENCH_PROFILE,
  define: { __RTC_AGENT_VERSION__: '"bench"', __RTC_BENCH_SCALE__: smoke ? "0.1" : "1" },
  logLevel: "warning",
});
await copyFile(join(root, "test/bench/page.html"), join(buildDir, "index.html"));

const server = await startServer({ distDir: join(root, "dist"), testDir: buildDir });
const browser = await launchChromium();
const rows = [];
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (err) => console.log(`  [page error] ${err.message}`));
  page.on("console", (m) => process.env.BENCH_LOG && console.log(`  [page] ${m.text()}`));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  await page.goto(`${server.hostOrigin}/test/`);
  await page.waitForFunction(() => window.bench !== undefined);
  const names = (await page.evaluate(() => window.bench.scenarios)).filter((n) => n.includes(filter));
  for (const name of names) {
    try {
      await page.evaluate((n) => window.bench.prepare(n), name);
    } catch (err) {
      rows.push({ scenario: name, shown: `PREPARE FAILED ${err.message.split("\n")[0]}` });
      failed = true;
      continue;
    }
    await page.evaluate(() => {
      window.__longtasks = [];
      window.__observer?.disconnect();
      window.__observer = new PerformanceObserver((l) => window.__longtasks.push(...l.getEntries().map((e) => e.duration)));
      window.__observer.observe({ type: "longtask" });
    });
    const before = await taskDuration(cdp);
    if (process.env.BENCH_PROFILE === "cpu") {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.start");
    }
    await browser.startTracing(page, { categories: process.env.BENCH_PROFILE ? ["toplevel", "blink.user_timing", "devtools.timeline"] : ["toplevel", "blink.user_timing"] });
    const started = Date.now();
    let result;
    let error = "";
    let timer;
    try {
      result = await Promise.race([
        page.evaluate(() => window.bench.run()),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no result within ${SCENARIO_TIMEOUT_MS / 1000} s`)), SCENARIO_TIMEOUT_MS))),
      ]);
    } catch (err) {
      error = err.message.split("\n")[0];
      failed = true;
    } finally {
      clearTimeout(timer); // or it would keep the process alive for its whole length
    }
    const wall = Date.now() - started;
    if (process.env.BENCH_PROFILE === "cpu") printProfile((await cdp.send("Profiler.stop")).profile);
    const trace = JSON.parse((await browser.stopTracing()).toString("utf8"));
    if (process.env.BENCH_TRACE) await writeFile(`${process.env.BENCH_TRACE}-${rows.length}.json`, JSON.stringify(trace));
    const after = await taskDuration(cdp);
    const tasks = mainThreadTasks(trace);
    if (process.env.BENCH_PROFILE) printKinds(trace);
    const perDelta = result ? deltaCost(trace, result.fifth) : null;
    const longtasks = await page.evaluate(() => window.__longtasks.length).catch(() => -1);
    rows.push({
      scenario: name,
      "max task ms": tasks.max.toFixed(1),
      "main-thread ms": tasks.total.toFixed(0),
      "max task CPU ms": tasks.maxCpu.toFixed(1),
      "main-thread CPU ms": tasks.cpu.toFixed(0),
      "CDP TaskDuration ms": ((after - before) * 1000).toFixed(0),
      "long tasks": longtasks,
      "CPU ms/delta first fifth": perDelta?.start.toFixed(2) ?? "",
      "CPU ms/delta last fifth": perDelta?.end.toFixed(2) ?? "",
      "wall s": (wall / 1000).toFixed(1),
      shown: error ? `ERROR ${error}` : (result.note ?? `${result.shown}/${result.bytes} chars, ${result.deltas} deltas`),
    });
    console.log(`done: ${name}`);
  }
  await page.evaluate(() => window.bench.dispose()).catch(() => undefined);
  if (!filter) {
    const parsed = await page.evaluate(() => window.bench.parseTimes());
    console.log(`one markdown-it parse (median of 5): ${Object.entries(parsed).map(([k, ms]) => `${k} ${ms.toFixed(1)} ms`).join(", ")}`);
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(smoke ? "\nsmoke run (inputs scaled to 1/10):" : "");
console.table(rows);
// The file tools (grep first after a page load and repeated), unless a filter names a scenario.
if (!filter || "files grep".includes(filter)) {
  try {
    console.log(`\nfile tools${smoke ? " (100 files)" : ""}:\n${await runToolsBench({ smoke })}`);
  } catch (err) {
    console.log(`file tools FAILED: ${err.message}`);
    failed = true;
  }
}
if (failed) process.exitCode = 1;

async function taskDuration(cdp) {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return metrics.find((m) => m.name === "TaskDuration")?.value ?? 0;
}

/** Top-level tasks of the busiest renderer main thread in a trace: longest and total, in ms. */
function mainThreadTasks(trace) {
  const events = trace.traceEvents ?? trace;
  const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const per = new Map();
  const tasks = events
    .filter((e) => e.ph === "X" && (e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask") && typeof e.dur === "number" && mains.has(`${e.pid}:${e.tid}`))
    .sort((a, b) => a.ts - b.ts);
  for (const e of tasks) {
    const key = `${e.pid}:${e.tid}`;
    const t = per.get(key) ?? { max: 0, total: 0, maxCpu: 0, cpu: 0, end: 0 };
    if (e.ts < t.end) continue; // nested inside a task already counted
    t.end = e.ts + e.dur;
    t.max = Math.max(t.max, e.dur / 1000);
    t.total += e.dur / 1000;
    // Thread time: what the task cost on the CPU, without the time the thread
    // waited for one (on a busy machine wall time overstates the cost).
    t.maxCpu = Math.max(t.maxCpu, (e.tdur ?? e.dur) / 1000);
    t.cpu += (e.tdur ?? e.dur) / 1000;
    per.set(key, t);
  }
  return [...per.values()].sort((a, b) => b.total - a.total)[0] ?? { max: 0, total: 0, maxCpu: 0, cpu: 0 };
}

/**
 * Main-thread CPU time per delta over the first and the last fifth of the
 * deltas (between the marks run() sets), to see whether an update costs more as
 * the answer grows.
 */
function deltaCost(trace, fifth) {
  const events = trace.traceEvents ?? trace;
  const at = (name) => events.find((e) => e.name === name && e.cat?.includes("blink.user_timing"))?.ts;
  const [s0, s1, e0, e1] = ["bench:start0", "bench:start1", "bench:end0", "bench:end1"].map(at);
  if ([s0, s1, e0, e1].some((t) => t === undefined) || fifth === 0) return null;
  const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.ph === "X" && (e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask") && mains.has(`${e.pid}:${e.tid}`));
  const cpu = (from, to) => {
    let sum = 0;
    let end = 0;
    for (const e of tasks.sort((a, b) => a.ts - b.ts)) {
      if (e.ts < end || e.ts < from || e.ts >= to) continue;
      end = e.ts + e.dur;
      sum += (e.tdur ?? e.dur) / 1000;
    }
    return sum;
  };
  return { start: cpu(s0, s1) / fifth, end: cpu(e0, e1) / fifth };
}

/** With BENCH_PROFILE=1: the functions with the most self time. */
function printProfile(profile) {
  const self = new Map();
  const dt = new Map();
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (dt.get(n.id) ?? 0) / 1000);
  }
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
  for (const [k, ms] of top) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${k}`);
}

/** With BENCH_PROFILE=1: main-thread CPU time by trace event (Layout, Paint, FunctionCall, …). */
function printKinds(trace) {
  const events = trace.traceEvents ?? trace;
  const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const by = new Map();
  for (const e of events) if (e.ph === "X" && mains.has(`${e.pid}:${e.tid}`) && e.cat.includes("devtools.timeline")) by.set(e.name, (by.get(e.name) ?? 0) + (e.tdur ?? e.dur) / 1000);
  for (const [k, ms] of [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${k}`);
}
