import type { ScriptRunner, ScriptRunnerOptions, ToolResult, VirtualFS } from "./sdk.js";
import { ctx, freshVfs, sleep } from "./context.js";
import { eq, includes, matches, ok, rejects, test } from "./harness.js";

const runners: ScriptRunner[] = [];

/** A runner on a fresh VFS; runners of earlier tests are disposed first, so each test starts without frames. */
async function setup(opts: Partial<ScriptRunnerOptions> = {}): Promise<{ vfs: VirtualFS; runner: ScriptRunner }> {
  for (const r of runners.splice(0)) r.dispose();
  const vfs = await freshVfs();
  const runner = new ctx.sdk.ScriptRunner({ vfs, timeoutMs: 5000, ...opts });
  runners.push(runner);
  return { vfs, runner };
}

/** Sandbox frames currently in the page. */
const frames = () => [...document.querySelectorAll<HTMLIFrameElement>("iframe[sandbox]")];

test("script: values of expressions, last lines and returns", async () => {
  const { runner } = await setup();
  eq((await runner.eval("1 + 1")).result, 2);
  eq((await runner.eval("const xs = [1, 2, 3];\nxs.length")).result, 3, "last line after a statement");
  eq((await runner.eval("const x = 5;\nreturn x * 2;")).result, 10);
  eq((await runner.eval("return { a: params.a, b: [params.b] }", { a: "A", b: 2 })).result, { a: "A", b: [2] });
  eq((await runner.eval("await Promise.resolve(7);")).result, 7, "an awaited expression");
  const none = await runner.eval("const y = 1;\nif (y) { console.log('no value') }");
  eq(none.ok, true);
  eq(none.result, undefined);
  const loop = await runner.eval("let n = 0;\nfor (const i of [1, 2, 3])\n  n += i\nreturn n");
  eq(loop.result, 6, "a braceless loop body is not turned into a return");
  ok(typeof none.duration_ms === "number" && none.duration_ms >= 0, "duration_ms is reported");
});

test("script: console is captured with levels and caps", async () => {
  const { runner } = await setup({ maxLogEntries: 5, maxLogChars: 20 });
  const r = await runner.eval(
    "console.log('hello', 42, {a: 1}); console.info('i'); console.warn('w'); console.error(new TypeError('bad')); console.log('x'.repeat(50)); console.log('dropped 1'); console.log('dropped 2'); return 'done'",
  );
  eq(r.result, "done");
  eq(r.logs, [
    { level: "log", text: 'hello 42 {"a":1}' },
    { level: "info", text: "i" },
    { level: "warn", text: "w" },
    { level: "error", text: "TypeError: bad" },
    { level: "log", text: "xxxxxxxxxxxxxxxxxxxx… [30 more characters]" },
    { level: "warn", text: "[2 more console entries were dropped]" },
  ]);
});

test("script: errors, syntax errors and non-JSON results fail clearly", async () => {
  const { runner } = await setup({ maxResultChars: 100 });
  const thrown = await runner.eval("const a = 1;\nthrow new Error('boom')");
  eq(thrown.ok, false);
  matches(thrown.error ?? "", /^Error: boom\n.*script:2:\d+/);
  const syntax = await runner.eval("let x = ;");
  eq(syntax.ok, false);
  includes(syntax.error ?? "", "SyntaxError");
  includes((await runner.eval("return 10n")).error ?? "", "not JSON-serialisable");
  includes((await runner.eval("return 'x'.repeat(200)")).error ?? "", "the limit is 100");
  includes((await runner.eval("throw 'plain string'")).error ?? "", "non-Error value: plain string");
  eq((await runner.eval("return 3")).result, 3, "the runner still works after failures");
});

test("script: rtcAgent.fs reads and writes the page's VFS", async () => {
  const { vfs, runner } = await setup();
  await vfs.writeFile("/in/data.json", JSON.stringify({ n: 41 }));
  const r = await runner.eval(`
    const data = JSON.parse(await rtcAgent.fs.read('/in/data.json'));
    const w = await rtcAgent.fs.write('/out/result.txt', 'n=' + (data.n + 1));
    await rtcAgent.fs.mkdir('/out/sub');
    const names = (await rtcAgent.fs.ls('/out')).map((e) => e.name + ':' + e.type);
    const exists = await rtcAgent.fs.exists('/out/result.txt');
    await rtcAgent.fs.rename('/out/sub', '/out/sub2');
    const walked = (await rtcAgent.fs.walk('/out')).map((e) => e.path);
    let missing;
    try { await rtcAgent.fs.read('/missing.txt') } catch (e) { missing = [e.code, e.message] }
    await rtcAgent.fs.remove('/in');
    return { w, names, exists, walked, missing, size: (await rtcAgent.fs.stat('/out/result.txt')).size };
  `);
  eq(r.error, undefined);
  eq(r.result, {
    w: { path: "/out/result.txt", bytes: 4, created: true },
    names: ["result.txt:file", "sub:dir"],
    exists: true,
    walked: ["/out/result.txt", "/out/sub2"],
    missing: ["ENOENT", "ENOENT: no such file or directory: /missing.txt"],
    size: 4,
  });
  eq(await vfs.readFile("/out/result.txt"), "n=42");
  eq(await vfs.exists("/in"), false);
  const uncaught = await runner.eval("await rtcAgent.fs.read('/../etc')");
  eq(uncaught.error, "EINVAL: '..' is not allowed in paths (got \"/../etc\"); use an absolute path such as /dir/file.txt");
});

test("script: host functions via rtcAgent.call", async () => {
  const { runner } = await setup({
    functions: {
      add: (args) => {
        const { a, b } = args as { a: number; b: number };
        return a + b;
      },
      later: async () => ({ when: "soon" }),
      boom: () => {
        throw new Error("kaput");
      },
      big: () => ({ n: 10n }),
    },
  });
  eq((await runner.eval("await rtcAgent.call('add', { a: 2, b: 3 })")).result, 5);
  eq((await runner.eval("await rtcAgent.call('later')")).result, { when: "soon" });
  const r = await runner.eval(`
    const errs = [];
    for (const name of ['boom', 'nope', 'big']) {
      try { await rtcAgent.call(name, {}) } catch (e) { errs.push(e.message) }
    }
    return errs;
  `);
  const errs = r.result as string[];
  eq(errs[0], "kaput");
  eq(errs[1], 'no host function named "nope"; available: add, big, boom, later');
  includes(errs[2] ?? "", "not JSON-serialisable");
  runner.setFunction("late", () => "added later");
  eq((await runner.eval("await rtcAgent.call('late')")).result, "added later");
});

test("script: a name that reads as a path (backslashes, slash lookalikes) is refused with EINVAL", async () => {
  const { vfs, runner } = await setup();
  const names = ["/\\..\\AGENT.md", "/notes\\todo.md", "/a\u2215b.md", "/\uFF0E\uFF0E", "/x/\u2024"];
  const r = await runner.eval(
    "const out = [];\nfor (const p of params.names) {\n  try { await rtcAgent.fs.write(p, 'x'); out.push('written'); } catch (e) { out.push(e.code ?? e.name); }\n}\ntry { await rtcAgent.fs.mkdir('/dir\\\\sub'); out.push('made'); } catch (e) { out.push(e.code); }\nreturn out;",
    { names },
  );
  eq(r.result, ["EINVAL", "EINVAL", "EINVAL", "EINVAL", "EINVAL", "EINVAL"], JSON.stringify(r));
  eq((await vfs.walk("/")).length, 0, "nothing was created");
  const plain = await runner.eval("await rtcAgent.fs.write('/notes/a..b .md', 'x'); return (await rtcAgent.fs.ls('/notes')).map((e) => e.name)");
  eq(plain.result, ["a..b .md"], "dots inside a name stay allowed");
});

test("script: save, run and their errors", async () => {
  const { vfs, runner } = await setup();
  const saved = await runner.save("sum", "return params.xs.reduce((a, b) => a + b, 0)");
  eq(saved.path, "/.scripts/sum.js");
  eq(await vfs.readFile("/.scripts/sum.js"), "return params.xs.reduce((a, b) => a + b, 0)");
  eq((await runner.run("sum", { xs: [1, 2, 3] })).result, 6);
  eq((await runner.run("sum.js", { xs: [4] })).result, 4, "a .js suffix is accepted");
  await rejects(runner.save("broken", "return (;"), { message: /was not saved: SyntaxError/ });
  eq(await vfs.exists("/.scripts/broken.js"), false);
  await rejects(runner.save("../evil", "1"), { message: /invalid script name/ });
  const missing = await runner.run("ghost");
  eq(missing.ok, false);
  includes(missing.error ?? "", 'no saved script named "ghost" (looked for /.scripts/ghost.js)');
});

test("script: an endless loop is killed at its deadline", async () => {
  const { runner } = await setup();
  await runner.warm();
  const before = frames();
  eq(before.length, 1, "one warm sandbox frame");
  const r = await runner.eval("while (true) {}", {}, { timeoutMs: 1000 });
  eq(r.ok, false);
  eq(r.timed_out, true);
  eq(r.error, "script timed out after 1000 ms and was stopped");
  ok(r.duration_ms >= 1000 && r.duration_ms < 2500, `duration ${r.duration_ms} ms`);
  ok(before.every((f) => !f.isConnected), "the frame running the loop was removed");
  eq((await runner.eval("'alive'")).result, "alive", "a fresh sandbox serves the next run");
});

test("script: a killed script's queued calls never reach the host", async () => {
  let ticks = 0;
  const { runner } = await setup({ functions: { tick: () => void ticks++ } });
  const r = await runner.eval(
    "for (;;) { const t = Date.now(); while (Date.now() - t < 5) {} rtcAgent.call('tick') }",
    {},
    { timeoutMs: 700 },
  );
  eq(r.timed_out, true);
  ok(ticks > 0, `the loop made calls while alive (${ticks})`);
  const atKill = ticks;
  await sleep(400);
  eq(ticks, atKill, "no call was served after the deadline");
});

test("script: a run flooding messages is stopped", async () => {
  const { runner } = await setup({ maxMessages: 50 });
  const r = await runner.eval("for (let i = 0; i < 500; i++) console.log(i); return 1");
  eq(r.ok, false);
  includes(r.error ?? "", "sent more than 50 messages");
});

test("script: no network, no DOM, no storage, opaque origin", async () => {
  const { runner } = await setup();
  const before = (await (await fetch("/probe-log")).json()) as unknown[];
  const r = await runner.eval(
    `
    const out = {};
    const attempt = async (name, fn) => {
      try { await fn(); out[name] = 'NO ERROR'; } catch (e) { out[name] = String((e && e.message) || e); }
    };
    for (const [i, origin] of params.origins.entries()) {
      const u = (via) => origin + '/probe?via=' + via + i;
      await attempt('fetch' + i, () => fetch(u('fetch')));
      await attempt('protoFetch' + i, () => WorkerGlobalScope.prototype.fetch.call(self, u('protofetch')));
      await attempt('xhr' + i, () => { const x = new XMLHttpRequest(); x.open('GET', u('xhr')); x.send(); });
      await attempt('ws' + i, () => new WebSocket(origin.replace('http', 'ws') + '/probe-ws'));
      await attempt('eventsource' + i, () => new EventSource(u('es')));
      await attempt('import' + i, () => import(u('import')));
      await attempt('importScripts' + i, () => importScripts(u('importscripts')));
      await attempt('worker' + i, () => new Worker(u('worker')));
    }
    await attempt('document', () => document.title);
    await attempt('window', () => window.location.href);
    await attempt('indexedDB', () => new Promise((res, rej) => { const q = indexedDB.open('steal'); q.onsuccess = res; q.onerror = () => rej(q.error); }));
    return { out, self: typeof self, globals: typeof WorkerGlobalScope + typeof postMessage };
    `,
    { origins: [ctx.sdkOrigin, location.origin] },
  );
  eq(r.error, undefined);
  const { out, self, globals } = r.result as { out: Record<string, string>; self: string; globals: string };
  // The script runs in the QuickJS interpreter inside the worker: no worker global
  // at all (the worker itself refuses to run unless its origin is opaque).
  eq(self, "undefined", "no worker global scope");
  eq(globals, "undefinedundefined");
  eq(Object.keys(out).length, 19);
  for (const [name, result] of Object.entries(out)) ok(result !== "NO ERROR", `${name} should fail`);
  includes(out.fetch0 ?? "", "network access is not available to scripts");
  includes(out.document ?? "", "'document' is not defined");
  await sleep(300);
  const after = (await (await fetch("/probe-log")).json()) as unknown[];
  eq(after.length - before.length, 0, `requests that reached the server: ${JSON.stringify(after.slice(before.length))}`);
});

test("script: a sandbox page served without its CSP is refused", async () => {
  const { runner } = await setup({ sandboxUrl: `${ctx.sdkOrigin}/sdk-nocsp/sandbox.html`, bootTimeoutMs: 5000 });
  const r = await runner.eval("1");
  eq(r.ok, false);
  includes(r.error ?? "", "the script sandbox refused to start: sandbox page has no Content-Security-Policy in force");
});

test("script: an SDK without sandboxUrl whose default location has no sandbox says to set sandboxUrl", async () => {
  for (const r of runners.splice(0)) r.dispose();
  const vfs = await freshVfs();
  const server = `${ctx.sdkOrigin}/sdk/sandbox.html`;
  // The SDK's code served where no sandbox.html is, as when a host bundles it: on the
  // SDK's origin (the frame loads a 404) and on the page's own (its CSP's frame-src blocks it).
  for (const [origin, cause] of [[ctx.sdkOrigin, "is not the sandbox page"], [location.origin, "Content-Security-Policy blocks"]] as const) {
    const bare = (await import(/* runtime URL */ `${origin}/sdk-bare/rtc-agent-internal.js`)) as typeof ctx.sdk;
    const runner = new bare.ScriptRunner({ vfs, timeoutMs: 5000, serverSandboxUrl: server });
    runners.push(runner);
    const started = performance.now();
    const r = await runner.eval("1 + 1");
    const ms = performance.now() - started;
    eq(r.ok, false);
    const tried = `${origin}/sdk-bare/sandbox.html`;
    includes(r.error ?? "", cause);
    includes(r.error ?? "", `no sandboxUrl option was given, so the SDK tried ${tried}`);
    includes(r.error ?? "", `set the sandboxUrl option (createAgent, or the element's .options) to your RTC Agent server's sandbox page, "${server}"`);
    ok(ms < 5000, `told in ${Math.round(ms)} ms, not at the 10 s boot deadline`);
    eq(frames().length, 0, "the failed frame is removed");
    // The fix it names works.
    const fixed = new bare.ScriptRunner({ vfs, timeoutMs: 5000, sandboxUrl: server });
    runners.push(fixed);
    eq((await fixed.eval("1 + 1")).result, 2, `with sandboxUrl set (SDK from ${origin})`);
    fixed.dispose();
    console.info(`[note] ${r.error}`);
  }
});

test("script: runs are serialised and dispose stops everything", async () => {
  const { runner } = await setup();
  const results = await Promise.all([runner.eval("1"), runner.eval("2"), runner.eval("3")]);
  eq(results.map((r) => r.result), [1, 2, 3]);
  const pending = runner.eval("while (true) {}", {}, { timeoutMs: 10_000 });
  await sleep(100);
  runner.dispose();
  const r = await pending;
  eq(r.error, "the script runner was shut down");
  includes((await runner.eval("1")).error ?? "", "shut down");
});

test("script tool: eval/save/run through the registry", async () => {
  const { vfs, runner } = await setup();
  const reg = new ctx.sdk.ToolRegistry();
  const call = (args: unknown): Promise<ToolResult> => reg.execute("script", args, { vfs, script: runner });
  const ev = await call({ action: "eval", code: "console.log('hi'); console.warn('careful'); return params.n * 3", params: { n: 2 } });
  ok(ev.ok, JSON.stringify(ev));
  const parsed = JSON.parse(ev.ok ? ev.output : "{}") as { result: unknown; logs: string[]; duration_ms: number };
  eq(parsed.result, 6);
  eq(parsed.logs, ["hi", "[warn] careful"]);
  eq(typeof parsed.duration_ms, "number");
  const bad = await call({ action: "eval", code: "console.log('before'); throw new RangeError('bad')" });
  ok(!bad.ok);
  matches(bad.ok ? "" : bad.error, /^Script failed: RangeError: bad\n[\s\S]*duration_ms: \d+\nlogs:\nbefore$/);
  const save = await call({ action: "save", name: "triple", code: "return params.n * 3" });
  eq(save.ok ? save.output : save.error, 'Saved script "triple" to /.scripts/triple.js (19 bytes). Run it with {"action": "run", "name": "triple", "params": {...}}.');
  const run = await call({ action: "run", name: "triple", params: { n: 5 } });
  eq(JSON.parse(run.ok ? run.output : "{}").result, 15);
  const none = await call({ action: "eval", code: "const x = 1;" });
  eq(JSON.parse(none.ok ? none.output : "{}").result, null, "no value is reported as null");
  eq(await call({}), { ok: false, error: 'Invalid arguments for script: "action" is required' });
  eq(await call({ action: "delete" }), { ok: false, error: 'Invalid arguments for script: "action" must be one of eval, run, save; got "delete"' });
  eq(await call({ action: "eval" }), { ok: false, error: 'Invalid arguments for script: "code" is required' });
  const arr = await call({ action: "eval", code: "1", params: [1] });
  includes(arr.ok ? "" : arr.error, '"params" must be a JSON object, got array');
  const noRunner = await reg.execute("script", { action: "eval", code: "1" }, { vfs });
  includes(noRunner.ok ? "" : noRunner.error, "not available");
});

test("script: cleanup", () => {
  for (const r of runners.splice(0)) r.dispose();
  eq(frames().length, 0, "no sandbox frame left behind");
});
