// Entry of the end-to-end suite: builds the Go server once (it embeds the fresh
// web/dist), starts the host site and Chromium, runs every test against its own
// server process, prints one line per test and "N passed, N failed".
// Usage (after `npm run build`): node test/.build/e2e.mjs [name-filter]

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { runAll } from "./harness.js";
import { setBrowser } from "./pages.js";
import { HostServer, buildBinaries, type Paths } from "./servers.js";
import { setHost } from "./context.js";
import "./ui.test.js";
import "./ask.test.js";
import "./manual.test.js";
import "./toolcalls.test.js";
import "./reload.test.js";
import "./tabs.test.js";
import "./restart.test.js";
import "./recovery.test.js";
import "./script.test.js";
import "./sessions.test.js";
import "./devices.test.js";
import "./long.test.js";
import "./approvals.test.js";
import "./typed.test.js";
import "./layout.test.js";
import "./connection.test.js";
import "./handover.test.js";
import "./options.test.js";
import "./render.test.js";
import "./csp.test.js";
import "./shop.test.js";
import "./react-pack.test.js";
import "./pack.test.js";
import "./react-hooks.test.js";
import "./screenshot.test.js";
import "./webmcp.test.js";
import "./elicit.test.js";
import "./everything.test.js";
import "./tasks.test.js";
import "./cutargs.test.js";
import "./quota.test.js";
import "./backlog.test.js";
import "./agui.test.js";
import "./mcpapp.test.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

async function main(): Promise<void> {
  const started = Date.now();
  const web = join(dirname(fileURLToPath(import.meta.url)), "../..");
  const paths: Paths = { repo: join(web, ".."), web, build: join(web, "test/.build") };
  await buildBinaries(paths);
  console.log(`built the Go server in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const host = await HostServer.start(paths);
  setHost(host, paths);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  setBrowser(browser);
  let results;
  try {
    results = await runAll(process.argv[2] ?? "", (r) => {
      console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name} (${(r.ms / 1000).toFixed(1)} s)`);
      for (const n of r.notes ?? []) console.log(`     note: ${n}`);
      if (!r.ok) console.log(`     ${r.error!.replace(/\n/g, "\n     ")}`);
    });
  } finally {
    await browser.close();
    await host.close();
  }
  const failed = results.filter((r) => !r.ok).length;
  if (results.length === 0) console.log("no test ran");
  console.log(`\nend-to-end tests finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${results.length - failed} passed, ${failed || (results.length === 0 ? 1 : 0)} failed`);
  process.exitCode = failed > 0 || results.length === 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  console.log("0 passed, 1 failed");
  process.exitCode = 1;
});
