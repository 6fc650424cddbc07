// Entry of the browser suite: loads the SDK, runs every test, reports each result
// to the Node runner through the `__rtcReport` binding, then `__rtcDone`.

import { cleanup, loadSdk } from "./context.js";
import { runAll, type TestReport } from "./harness.js";
import "./vfs.test.js";
import "./tools.test.js";
import "./search.test.js";
import "./grams.test.js";
import "./paths.test.js";
import "./script.test.js";
import "./memory.test.js";
import "./topic.test.js";
import "./entities.test.js";
import "./executor.test.js";
import "./leader.test.js";
import "./approvals.test.js";
import "./elicit.test.js";
import "./confirm.test.js";
import "./typed.test.js";
import "./markdown.test.js";
import "./markdown-props.test.js";
import "./mdview.test.js";
import "./toolcard.test.js";
import "./live.test.js";
import "./writing.test.js";
import "./long.test.js";
import "./render.test.js";
import "./webmcp.test.js";
import "./storage.test.js";
import { dropDbs } from "./entities.test.js";

declare global {
  interface Window {
    __rtcReport?: (r: TestReport) => Promise<void>;
    __rtcDone?: (summary: { passed: number; failed: number }) => Promise<void>;
  }
}

async function main(): Promise<void> {
  const out = document.getElementById("out");
  const log = (line: string) => {
    if (out) out.textContent += line + "\n";
  };
  try {
    await loadSdk();
  } catch (err) {
    const r: TestReport = { name: "load SDK bundle", ok: false, ms: 0, error: String(err) };
    await window.__rtcReport?.(r);
    await window.__rtcDone?.({ passed: 0, failed: 1 });
    return;
  }
  const filter = new URLSearchParams(location.search).get("filter") ?? undefined;
  const results = await runAll(async (r) => {
    log(`${r.ok ? "ok" : "FAIL"} ${r.name} (${r.ms} ms)${r.error ? "\n    " + r.error : ""}`);
    await window.__rtcReport?.(r);
  }, filter);
  await cleanup();
  await dropDbs();
  const failed = results.filter((r) => !r.ok).length;
  await window.__rtcDone?.({ passed: results.length - failed, failed });
}

void main();
