// The package as an integrator gets it: `npm pack` of web/, the tarball installed
// into a fresh project (its only dependencies are type packages web/ has installed), the samples of
// test/pack/ type-checked there with `tsc --strict` (api.ts: what must and must
// not compile), bundled with esbuild from the installed package, then run in
// Chromium from a host site on another origin against the real Go server, each
// page under the host-site CSP web/README.md documents (after `default-src
// 'none'`): the headless entry with the page's own approval dialog, the element
// entry from the same bundle, and the two plain-HTML pages that load the SDK from
// the server (with dev-token, and with the host's token endpoint). Each sends a
// message whose scripted answer runs a script in the sandbox and calls the page's
// host tool; both results must reach the answer, and no CSP violation may occur.

import { build } from "esbuild";
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { paths } from "./context.js";
import { defer, eq, includes, note, ok, test, until } from "./harness.js";
import { AgentPage, call, cspViolations, newProfile, turn } from "./pages.js";
import { GoServer, readmeHostCsp } from "./servers.js";

const run = promisify(execFile);
const PLACEHOLDER = "https://agent.example.com";
const ANSWER = '{"added":"MUG-BLUE","items":1}';
/** The script's result, as the answer quotes it: it ran in the sandbox frame. */
const SCRIPTED = '"result": 42';

const script = {
  name: "pack",
  turns: [
    turn("(?i)mug", [
      { text: "Checking the price.", tool_calls: [call("script", { action: "eval", code: "return 6 * 7;" })] },
      { text: "Adding the mug.", tool_calls: [call("addToCart", { sku: "MUG-BLUE" })] },
      { chunks: ["The cart says: ", "{{last_result}}", "; the script said ", '{{find:"result": \\d+}}'] },
    ]),
  ],
};

/** The exports each entry must have, no more: the deliberate public API. */
const HEADLESS_EXPORTS = ["ReloginRequired", "RpcError", "VERSION", "VfsError", "WORK_MODES", "createAgent", "defineTool", "toolState", "withToolTypes"];
const MAIN_EXPORTS = [...HEADLESS_EXPORTS, "RtcAgentElement", "defineElement"].sort();

interface App {
  dir: string;
  tarball: string;
}

/** Packs web/ and installs the tarball into a new project; returns the project. */
async function installTarball(): Promise<App> {
  const tmp = await mkdtemp(join(tmpdir(), "rtc-pack-"));
  defer(() => rm(tmp, { recursive: true, force: true }));
  const packed = await run("npm", ["pack", "--json", "--pack-destination", tmp], { cwd: paths.web });
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const files = info!.files.map((f) => f.path);
  for (const want of ["dist/rtc-agent.js", "dist/rtc-agent-headless.js", "dist/rtc-agent-markdown.js", "dist/rtc-agent-markdown.d.ts", "dist/sandbox.html", "dist/rtc-agent.d.ts", "dist/rtc-agent-headless.d.ts", "dist/types/index.d.ts", "package.json", "README.md"]) {
    ok(files.includes(want), `the tarball holds ${want}`);
  }
  ok(files.some((f) => /^dist\/rtc-agent-highlight-.*\.js$/.test(f)), "the tarball holds the lazily loaded chunks");
  ok(!files.some((f) => f.startsWith("src/") || f.startsWith("test/") || f.startsWith("node_modules/")), "no sources, tests or dependencies in the tarball");
  const tarball = join(tmp, info!.filename);
  const dir = join(tmp, "app");
  await mkdir(join(dir, "src"), { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "shop", private: true, type: "module" }, null, 2));
  // From npm's cache when it holds the type packages' metadata (web/'s
  // `npm ci` keeps only their tarballs there), else from the registry.
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: dir });
  const pkg = JSON.parse(await readFile(join(dir, "node_modules/@rtc-agent/web/package.json"), "utf8")) as Record<string, unknown>;
  ok(!("private" in pkg), "the package is not private");
  // Its dependencies are types only (the declarations import them): the code is bundled.
  const dist = join(dir, "node_modules/@rtc-agent/web/dist");
  const meta = await build({
    entryPoints: ["rtc-agent.js", "rtc-agent-headless.js"].map((n) => join(dist, n)),
    bundle: true,
    write: false,
    packages: "external",
    format: "esm",
    outdir: join(tmp, "scan"),
    metafile: true,
    logLevel: "silent",
  });
  const bare = Object.values(meta.metafile.inputs).flatMap((i) => i.imports.filter((x) => x.external).map((x) => x.path));
  eq(bare, [], "the bundles import no package");
  await cp(join(paths.web, "test/pack"), join(dir, "src"), { recursive: true });
  return { dir, tarball };
}

/** `tsc --strict` over the samples, with the given module resolution. */
async function typecheck(app: App, moduleResolution: "Bundler" | "NodeNext"): Promise<void> {
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: "ES2022",
      module: moduleResolution === "Bundler" ? "ESNext" : "NodeNext",
      moduleResolution,
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      types: [],
    },
    include: ["src/*.ts"],
  };
  const file = join(app.dir, `tsconfig.${moduleResolution}.json`);
  await writeFile(file, JSON.stringify(config, null, 2));
  try {
    await run(process.execPath, [join(paths.web, "node_modules/typescript/bin/tsc"), "-p", file, "--strict", "--noEmit"], { cwd: app.dir });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`tsc --strict (${moduleResolution}) failed on the samples:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/**
 * The host site: the sample pages with the server's URL, their bundles, and a
 * token endpoint; its pages under the README's host-site CSP.
 */
async function hostSite(app: App, go: GoServer): Promise<string> {
  const csp = await readmeHostCsp(paths, go.port);
  const types: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      try {
        if (path === "/my-backend/rtc-agent-token") {
          // The host's backend: here the development server's token for the signed-in user.
          const r = await fetch(`${go.url}/api/dev/token`, { method: "POST", body: JSON.stringify({ user_id: "alice" }) });
          const { token } = (await r.json()) as { token: string };
          return res.writeHead(200, { "Content-Type": "text/plain" }).end(token);
        }
        if (path === "/favicon.ico") return res.writeHead(204).end();
        const file = path.startsWith("/out/") ? join(app.dir, "out", path.slice(5)) : join(app.dir, "src", path.slice(1));
        if (!/^\/([\w-]+\/)?[\w.-]+\.(html|js)$/.test(path)) return res.writeHead(404).end();
        let body = await readFile(file, "utf8");
        body = body.replaceAll(PLACEHOLDER, go.url); // the samples name a placeholder server
        const headers: Record<string, string> = { "Content-Type": types[extname(path)]!, "Cache-Control": "no-cache" };
        if (extname(path) === ".html") headers["Content-Security-Policy"] = csp;
        res.writeHead(200, headers).end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  defer(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  // localhost, not 127.0.0.1: another origin than the Go server, as a real site.
  return `http://localhost:${(server.address() as { port: number }).port}`;
}

/** Allows each confirmation the element shows until an answer containing `needle` arrives. */
async function allowUntilAnswer(p: AgentPage, needle: string): Promise<string> {
  const allow = p.page.locator("rtc-agent .prompt.confirm").getByRole("button", { name: "Allow", exact: true });
  return until(
    `an answer containing ${JSON.stringify(needle)}`,
    async () => {
      if ((await allow.count()) > 0) await allow.first().click({ timeout: 2_000 }).catch(() => undefined);
      return (await p.page.locator("rtc-agent .msg.assistant[data-status='complete'] .md").allInnerTexts()).find((t) => t.includes(needle));
    },
    30_000,
    200,
  );
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

test("pack: the tarball installs, type-checks with tsc --strict, bundles, and its entries run against the server", async () => {
  const app = await installTarball();

  // Each entry exports exactly the public API (loaded in Node: they run there too).
  const dist = join(app.dir, "node_modules/@rtc-agent/web/dist");
  const headless = Object.keys(await import(pathToFileURL(join(dist, "rtc-agent-headless.js")).href)).sort();
  eq(headless, HEADLESS_EXPORTS, "exports of @rtc-agent/web/headless");
  eq(Object.keys(await import(pathToFileURL(join(dist, "rtc-agent.js")).href)).sort(), MAIN_EXPORTS, "exports of @rtc-agent/web");
  eq(Object.keys(await import(pathToFileURL(join(dist, "rtc-agent-markdown.js")).href)).sort(), ["renderMarkdown"], "exports of @rtc-agent/web/markdown");

  // The README shows these files as they are ("Embed in five minutes", "Embedding").
  const readme = await readFile(join(paths.web, "README.md"), "utf8");
  for (const f of ["embed/index.html", "embed/shop.js", "embedding/index.html", "embedding/shop.js"]) {
    includes(readme, (await readFile(join(paths.web, "test/pack", f), "utf8")).trimEnd(), `README: test/pack/${f} as it is`);
  }
  const sample = (await readFile(join(paths.web, "test/pack/headless.ts"), "utf8")).replace(/^(\/\/.*\n)+/, "").trim();
  includes(readme, sample, "README: the headless variant is headless.ts");
  const apiLines = (await readFile(join(paths.web, "test/pack/api.ts"), "utf8")).split("\n");
  const render = apiLines.slice(apiLines.findIndex((l) => l.includes('name: "weather",')), apiLines.findIndex((l) => l.includes("render: ({ state")) + 1);
  includes(readme, render.join("\n").replace(/^ {2}/, ""), "README: the render sample is checked in api.ts");

  await typecheck(app, "Bundler");
  await typecheck(app, "NodeNext");
  // The expected errors of api.ts are real: without the @ts-expect-error lines it fails.
  const api = await readFile(join(app.dir, "src/api.ts"), "utf8");
  await writeFile(join(app.dir, "src/api.ts"), api.replaceAll("// @ts-expect-error", "//"));
  const failed = await typecheck(app, "Bundler").then(
    () => "",
    (err: Error) => err.message,
  );
  includes(failed, `Argument of type '"v1.sesion.lst"' is not assignable`, "a misspelt method is a compile error");
  includes(failed, `Property 'skuu' does not exist`, "a typed RTC's misspelt argument is a compile error");
  await writeFile(join(app.dir, "src/api.ts"), api);

  // The host's own bundle of each entry, from the installed package.
  const out = await build({
    absWorkingDir: app.dir,
    entryPoints: [join(app.dir, "src/headless.ts"), join(app.dir, "src/element.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    splitting: true, // code loaded on first use stays in chunks of its own
    outdir: join(app.dir, "out"),
    metafile: true,
    logLevel: "warning",
  });
  const headlessJs = await readFile(join(app.dir, "out/headless.js"), "utf8");
  ok(!headlessJs.includes("customElements"), "the headless bundle defines no element");
  ok(!headlessJs.includes("markdown-it") && !headlessJs.includes("hljs"), "nor carries the UI's libraries");
  // What each page loads up front: its entry and the chunks it imports statically.
  for (const name of ["headless.js", "element.js"]) {
    const seen = new Set<string>();
    const visit = (f: string) => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const i of out.metafile.outputs[f]?.imports ?? []) if (i.kind === "import-statement") visit(i.path);
    };
    visit(Object.keys(out.metafile.outputs).find((f) => f.endsWith(`out/${name}`))!);
    let raw = 0;
    let gz = 0;
    for (const f of seen) {
      const body = await readFile(join(app.dir, f));
      raw += body.length;
      gz += gzipSync(body).length;
    }
    note(`host bundle ${name} with its static chunks: ${kib(raw)} (gzip ${kib(gz)})`);
  }
  ok(Object.keys(out.metafile.inputs).some((f) => f.includes("node_modules/@rtc-agent/web/dist/")), "bundled from the installed package");

  // Run them against the real server.
  const go = await GoServer.start({ script });
  const site = await hostSite(app, go);

  // 1. Headless: the page's own form, dialog and list of answers.
  const ctx = await newProfile();
  const violations = await cspViolations(ctx);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
  const response = await page.goto(`${site}/headless.html`);
  includes((await response?.allHeaders())?.["content-security-policy"] ?? "", `default-src 'none'; script-src 'self' ${go.url}`, "the pages run under the README's CSP");
  await page
    .locator("button:not([disabled])")
    .waitFor({ timeout: 20_000 })
    .catch((err: Error) => {
      throw new Error(`the headless page did not connect: ${err.message}\npage errors: ${errors.join("\n")}`);
    });
  await page.fill("input", "Put the blue mug in my cart");
  await page.click("button");
  const answer = await until("the headless page's answer", async () => (await page.locator("#answers p").allInnerTexts()).find((t) => t.includes("The cart says")), 30_000);
  includes(answer, ANSWER, "the host tool's result reached the answer");
  includes(answer, SCRIPTED, "the script ran in the sandbox (sandboxUrl)");
  eq(dialogs, ['Allow script {"action":"eval","code":"return 6 * 7;"}?', 'Allow addToCart {"sku":"MUG-BLUE"}?'], "the page's own dialog asked once a call");
  eq(errors, [], "no page errors (headless)");
  eq(violations, [], "no CSP violation (headless)");

  // 2. The element entry, bundled by the host; 3. plain HTML: the SDK loaded from
  // the server, the element with dev-token; 4. the same with the host's token endpoint.
  for (const [name, path] of [["element", "element.html"], ["plain HTML", "embed/index.html"], ["plain HTML with getToken", "embedding/index.html"]]) {
    const profile = await newProfile();
    const blocked = await cspViolations(profile);
    const p = await AgentPage.open(profile, `${site}/${path}`).catch((err: Error) => {
      throw new Error(`${name}: ${err.message}\nCSP violations: ${blocked.join("\n")}`);
    });
    await p.send("A blue mug please");
    const reply = await allowUntilAnswer(p, "The cart says");
    includes(reply, ANSWER, `${name}: the host tool's result reached the answer`);
    includes(reply, SCRIPTED, `${name}: the script ran in the sandbox`);
    eq(await p.page.locator("rtc-agent").evaluate((e) => Math.round(e.getBoundingClientRect().height)), path === "element.html" ? 640 : 600, `${name}: the element's height`);
    eq(p.noErrors(), [], `no page errors (${name})`);
    eq(blocked, [], `no CSP violation (${name})`);
  }

  // The server serves the declarations next to the bundle.
  const types = await fetch(`${go.url}/sdk/rtc-agent.d.ts`);
  eq(types.status, 200, "GET /sdk/rtc-agent.d.ts");
  includes(await types.text(), "./types/index.js");
  const index = await fetch(`${go.url}/sdk/types/index.d.ts`);
  eq(index.status, 200, "GET /sdk/types/index.d.ts");
  includes(index.headers.get("content-type") ?? "", "typescript");
  ok((await stat(app.tarball)).size > 0);
});
