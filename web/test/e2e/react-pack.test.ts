// @rtc-agent/react as an integrator gets it: both packages packed (npm pack),
// installed from their tarballs into a fresh copy of the example shop
// (examples/shop) with React from the registry, type-checked with `tsc --strict`,
// bundled by the example's own esbuild build (the SDK bundled in, no import map),
// and run in Chromium from a host site on another origin under the host-site CSP
// of web/README.md, against the real server and the demo model's shop turn and
// script turn (the sandbox comes from the server: sandboxUrl); the ?ui=element
// variant runs <AgentChat/> from the tarball. No CSP violation may occur.

import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { defer, eq, includes, ok, test, until } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, cspViolations, newProfile } from "./pages.js";
import { GoServer, readmeHostCsp } from "./servers.js";
import { staticSite } from "./static.js";

const run = promisify(execFile);

async function npm(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run("npm", args, { cwd, maxBuffer: 32 << 20, env: { ...process.env, npm_config_update_notifier: "false" } });
  return stdout;
}

/** Packs the package in `dir` into `dest`; returns the tarball's file name and its files. */
async function pack(dir: string, dest: string): Promise<{ filename: string; files: string[] }> {
  const [info] = JSON.parse(await npm(dir, "pack", "--json", "--pack-destination", dest)) as { filename: string; files: { path: string }[] }[];
  return { filename: info!.filename, files: info!.files.map((f) => f.path) };
}

test("react package: packed, installed from its tarball with the SDK's, type-checked, bundled and run in Chromium", async () => {
  const tmp = await mkdtemp(join(tmpdir(), "rtc-react-pack-"));
  defer(() => rm(tmp, { recursive: true, force: true }));
  const web = await pack(paths.web, tmp);
  const react = await pack(join(paths.web, "react"), tmp);
  for (const f of ["package.json", "README.md", "dist/index.js", "types/index.d.ts", "types/tool.d.ts"]) ok(react.files.includes(f), `the React tarball holds ${f}: ${react.files.join(", ")}`);
  ok(!react.files.some((f) => f.startsWith("src/")), "no sources in the React tarball");

  // The example shop, as an integrator copies it, with the two tarballs as its dependencies.
  const shop = join(tmp, "shop");
  await mkdir(shop);
  const example = join(paths.repo, "examples/shop");
  for (const f of ["src", "index.html", "styles.css", "build.mjs", "tsconfig.json"]) await cp(join(example, f), join(shop, f), { recursive: true });
  const pkg = JSON.parse(await readFile(join(example, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  pkg.dependencies["@rtc-agent/web"] = `file:../${web.filename}`;
  pkg.dependencies["@rtc-agent/react"] = `file:../${react.filename}`;
  await writeFile(join(shop, "package.json"), JSON.stringify(pkg, null, 2));
  await npm(shop, "install", "--no-audit", "--no-fund", "--prefer-offline");

  const installed = await readFile(join(shop, "node_modules/@rtc-agent/react/dist/index.js"), "utf8");
  ok(/from\s*"react"/.test(installed) && /from\s*"@rtc-agent\/web\/headless"/.test(installed), "React and the SDK stay imports of the package");
  includes(installed, 'import("@rtc-agent/web/element")', "the element is loaded when an AgentChat mounts");
  await run(join(shop, "node_modules/.bin/tsc"), ["--noEmit", "--strict", "-p", "tsconfig.json"], { cwd: shop }).catch((e: { stdout?: string }) => {
    throw new Error(`tsc --strict failed:\n${e.stdout ?? e}`);
  });
  const out = join(shop, "out");
  await run("node", ["build.mjs", out], { cwd: shop });
  const bundle = await readFile(join(out, "app.js"), "utf8");
  ok(!bundle.includes("@rtc-agent/web"), "the SDK is bundled, not imported by name (no import map)");
  ok(!bundle.includes("customElements.define"), "the chat UI is a chunk of its own, loaded when <AgentChat/> mounts");

  // The page as the READMEs show it: no inline script, so the host-site CSP allows it.
  const html = (await readFile(join(example, "index.html"), "utf8")).trimEnd();
  includes(await readFile(join(paths.web, "README.md"), "utf8"), html, "web/README.md shows examples/shop/index.html as it is");
  includes(await readFile(join(paths.web, "react/README.md"), "utf8"), html, "react/README.md shows examples/shop/index.html as it is");

  const go = await GoServer.start({ script: JSON.parse(await readFile(join(paths.repo, "internal/llm/scripted/demo.json"), "utf8")) as object });
  // The README's host-site CSP, after the shop's own needs: its stylesheet and its data: icon.
  const csp = (await readmeHostCsp(paths, go.port)).replace("default-src 'none';", "default-src 'none'; style-src 'self'; img-src data:;");
  const site = await staticSite([{ prefix: "/", dir: out, headers: { "Content-Security-Policy": csp } }]);
  const profile = await newProfile();
  const violations = await cspViolations(profile);
  const p = new AgentPage(await profile.newPage());
  const page = p.page;
  const response = await page.goto(`${site}/?server=${encodeURIComponent(go.url)}&user=pack-user`);
  eq((await response?.allHeaders())?.["content-security-policy"], csp, "the shop runs under the README's CSP");
  await page.locator(".chat-panel .conn[data-state='connected']").waitFor();
  await page.getByLabel("Message").fill("Buy me a mug");
  await page.getByRole("button", { name: "Send" }).click();

  const dialog = page.locator(".dialog[role='dialog']");
  await dialog.waitFor();
  eq(await dialog.getAttribute("data-tool"), "checkout", "only checkout asks (needsApproval)");
  eq(await page.locator(".cart li[data-product='mug']").getAttribute("data-quantity"), "2", "the model's addToCart filled the cart");
  await dialog.getByRole("button", { name: "Approve" }).click();
  const answer = await until("the checkout's answer", async () => (await page.locator(".msg.assistant[data-status='complete']", { hasText: "The checkout answered" }).allInnerTexts())[0]);
  includes(answer, '"orderId":"order-1"');
  eq(await page.locator(".chat-panel .tool").evaluateAll((els) => els.map((e) => `${e.getAttribute("data-tool")}:${e.getAttribute("data-state")}`)), ["listProducts:done", "addToCart:done", "checkout:done"]);
  // A script runs in the server's sandbox page (the bundled SDK has none next to it).
  await page.getByLabel("Message").fill("Compute something with a script");
  await page.getByRole("button", { name: "Send" }).click();
  await dialog.waitFor();
  eq(await dialog.getAttribute("data-tool"), "script");
  await dialog.getByRole("button", { name: "Approve" }).click();
  const computed = await until("the script's answer", async () => (await page.locator(".msg.assistant[data-status='complete']", { hasText: "The script ran" }).allInnerTexts())[0]);
  includes(computed, '"sum": 10945', "the script ran in the sandbox (sandboxUrl)");
  eq(p.noErrors(), [], "no page errors");
  eq(violations, [], "no CSP violation");

  // <AgentChat/> from the tarball: the element loads on mount; the tools under it register on its agent.
  const profile2 = await newProfile();
  const violations2 = await cspViolations(profile2);
  const e = new AgentPage(await profile2.newPage());
  await e.page.goto(`${site}/?ui=element&server=${encodeURIComponent(go.url)}&user=pack-element-user`);
  await e.connected();
  const tools = await until("the shop tools on the element's agent", () =>
    e.page.evaluate(() => {
      const names = (document.querySelector("rtc-agent") as unknown as { agent: { tools: { list(): { name: string }[] } } }).agent.tools.list().map((t) => t.name);
      return names.includes("checkout") ? names.filter((n) => ["listProducts", "addToCart", "viewCart", "checkout"].includes(n)) : null;
    }),
  );
  eq(tools, ["listProducts", "addToCart", "viewCart", "checkout"]);
  // The script sandbox of <AgentChat options={{ sandboxUrl }}>.
  await e.setMode("bypass");
  await e.send("Compute something with a script");
  includes(await e.waitForAnswer("The script ran", 30_000), '"sum": 10945', "the element's script ran in the sandbox");
  eq(e.noErrors(), [], "no page errors");
  eq(violations2, [], "no CSP violation (element)");
});
