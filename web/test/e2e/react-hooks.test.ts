// The hooks of @rtc-agent/react in a real React 19 app (web/react/test/hooks-app.tsx,
// bundled by esbuild here, in development mode and under StrictMode) on another
// origin than the server: useTool registers once however often the component
// renders and runs the latest render's function; unmounting the component takes
// the tool away (the model's next call of it fails as an unknown tool), mounting
// it again brings it back; a zod schema passes through to the SDK's validation;
// useMessages shows the calls' states and the text while it streams.

import { build } from "esbuild";
import { mkdtemp, copyFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { defer, eq, includes, ok, test, until } from "./harness.js";
import { paths } from "./context.js";
import { AgentPage, newProfile, turn, call } from "./pages.js";
import { GoServer } from "./servers.js";
import { sdkMount, staticSite } from "./static.js";

interface App {
  registered: number;
  unregistered: number;
  renders: { probe: number };
}
type Win = { app?: App & { agent: { tools: { list(): { name: string }[] }; send(t: string, o?: object): Promise<{ session_id: string }> }; setLabel(l: string): void; setMounted(m: boolean): void } };

const script = {
  name: "hooks",
  turns: [
    turn("(?i)probe", [{ text: "Calling.", tool_calls: [call("probeTool", {})] }, { chunks: ["Got: ", "{{last_result}}"] }]),
    turn("(?i)echo", [
      { text: "Echoing.", tool_calls: [call("echoTool", { text: 5 })] },
      { text: "Again.", tool_calls: [call("echoTool", { text: "hi" })] },
      { chunks: ["Got: ", "{{last_result}}"] },
    ]),
    // The pause between the parts is long enough to see the first alone on a busy machine.
    turn("(?i)stream", [{ chunks: ["First part. ", "Second part."], delay_ms: 1500 }]),
    turn("(?i)slowly", [
      { text: "Writing.", delay_ms: 300, tool_calls: [{ ...call("echoTool", { text: "slowly written" }), argument_chunks: 3 }] },
      { chunks: ["Got: ", "{{last_result}}"] },
    ]),
  ],
};

async function buildApp(): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), "rtc-react-hooks-"));
  defer(() => rm(out, { recursive: true, force: true }));
  const react = join(paths.web, "react");
  await build({
    entryPoints: { "hooks-app": join(react, "test/hooks-app.tsx") },
    bundle: true,
    format: "esm",
    target: "es2022",
    outdir: out,
    jsx: "automatic",
    alias: { "@rtc-agent/react": join(react, "src/index.ts") },
    external: ["@rtc-agent/web"],
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "warning",
  });
  await copyFile(join(react, "test/hooks.html"), join(out, "index.html"));
  return out;
}

const probeListed = (page: Page) => page.evaluate(() => (window as unknown as Win).app!.agent.tools.list().some((t) => t.name === "probeTool"));
const counts = (page: Page) => page.evaluate(() => ({ registered: (window as unknown as Win).app!.registered, unregistered: (window as unknown as Win).app!.unregistered }));
const answers = (page: Page) => page.locator("#chat .msg.assistant[data-status='complete']", { hasText: "Got:" }).allInnerTexts();
const states = (page: Page) => page.locator("#chat .tool").evaluateAll((els) => els.map((e) => e.getAttribute("data-state")));

test("react hooks: useTool registers once, runs the latest render's function and goes away on unmount; useMessages shows its states", async () => {
  const go = await GoServer.start({ script });
  const site = await staticSite([{ prefix: "/", dir: await buildApp() }, await sdkMount(join(paths.web, "dist"))]);
  const p = new AgentPage(await (await newProfile()).newPage());
  const page = p.page;
  await page.goto(`${site}/?server=${encodeURIComponent(go.url)}&user=hooks-user`);
  await until("the agent to connect", async () => (await page.locator("#conn").innerText()) === "connected");
  await until("the probe tool to be registered", async () => (await page.evaluate(() => !!(window as unknown as Win).app)) && (await probeListed(page)));
  const first = await counts(page);
  eq(first.registered - first.unregistered, 1, "registered once (StrictMode mounts twice in development)");

  for (const label of ["two", "three", "four"]) {
    await page.evaluate((l) => (window as unknown as Win).app!.setLabel(l), label);
    await until(`the label ${label} shown`, async () => (await page.locator("#label").innerText()) === label);
  }
  eq(await counts(page), first, "re-renders with new functions register nothing again");
  ok((await page.evaluate(() => (window as unknown as Win).app!.renders.probe)) >= 4, "the probe rendered for each label");

  // Bypass mode: no question before the host tool runs, whatever the SDK's approval rules.
  const sessionId = await page.evaluate(async () => (await (window as unknown as Win).app!.agent.send("probe it", { workMode: "bypass" })).session_id);
  const got = await until("the probe's answer", async () => (await answers(page))[0]);
  includes(got, "label is four", "the latest render's function ran");
  eq(await states(page), ["done"]);

  await page.evaluate(() => (window as unknown as Win).app!.setMounted(false));
  await until("the probe tool to be unregistered", async () => !(await probeListed(page)));
  eq((await counts(page)).unregistered, first.unregistered + 1, "unmount unregistered it once");
  await page.evaluate(async (id) => void (await (window as unknown as Win).app!.agent.send("probe again", { sessionId: id })), sessionId);
  const failed = await until("the second answer", async () => (await answers(page))[1]);
  includes(failed, "unknown tool", "the model's call of the unmounted tool failed");
  eq(await states(page), ["done", "error"]);

  await page.evaluate(() => (window as unknown as Win).app!.setMounted(true));
  await until("the probe tool registered again", () => probeListed(page));

  // A zod schema passed through useTool: a wrong argument is an error naming the field, a right one runs.
  await page.evaluate(async (id) => void (await (window as unknown as Win).app!.agent.send("echo", { sessionId: id })), sessionId);
  includes(await until("the echo answer", async () => (await answers(page))[2]), "echo hi");
  eq(await states(page), ["done", "error", "error", "done"]);
  includes((await page.locator("#chat .tool").nth(2).innerText()).toLowerCase(), "text", "the error names the field");

  // Streaming text: useMessages shows the first part while the message streams.
  await page.evaluate(async (id) => void (await (window as unknown as Win).app!.agent.send("stream", { sessionId: id })), sessionId);
  const streaming = page.locator("#chat .msg.assistant[data-status='streaming']");
  await until("the first part while streaming", async () => (await streaming.count()) === 1 && (await streaming.innerText()).includes("First part."));
  await until("the whole message", async () => (await page.locator("#chat .msg.assistant[data-status='complete']", { hasText: "First part. Second part." }).count()) === 1);

  // A call the model is writing: useSession lists it in `writing` with its arguments so far.
  await page.evaluate(async (id) => void (await (window as unknown as Win).app!.agent.send("write it slowly", { sessionId: id })), sessionId);
  const writing = page.locator("#chat .writing .tool[data-tool='echoTool'][data-state='input-streaming']");
  const inputs = new Set<string>();
  await until("the call written whole", async () => {
    if (await writing.count()) inputs.add((await writing.getAttribute("data-input")) ?? "");
    return inputs.has('{"text":"slowly written"}');
  });
  ok(inputs.size >= 2, `the arguments grew as they were written: ${[...inputs].join(" | ")}`);
  await until("the call's part in its message", async () => (await page.locator("#chat .writing").count()) === 0 && (await answers(page)).some((a) => a.includes("slowly written")));
  eq(p.noErrors(), [], "no page errors");
});
