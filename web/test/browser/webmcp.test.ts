// WebMCP bridge (src/agent/webmcp.ts) against a stand-in navigator.modelContext:
// provideContext replaces the page's tools, clearContext removes them, names the
// server would refuse are mapped, an isError result is a tool error, and
// stopping restores the page's API.

import type { ToolResult } from "./sdk.js";
import { ctx, freshVfs } from "./context.js";
import { eq, includes, ok, test } from "./harness.js";

type PageTool = { name: string; description?: string; inputSchema?: object; execute: (input: never) => unknown };

test("webmcp: page tools follow provideContext and clearContext, results and errors reach the tool", async () => {
  const reg = new ctx.sdk.ToolRegistry();
  const sink = { registerTool: (d: Parameters<typeof reg.registerHostTool>[0]) => reg.registerHostTool(d), unregisterTool: (n: string) => void reg.unregister(n) };
  const page = new Map<string, PageTool>();
  const registerTool = (t: PageTool) => void page.set(t.name, t);
  const mc = {
    registerTool,
    unregisterTool: (n: string) => void page.delete(n),
    provideContext: (c: { tools?: PageTool[] }) => {
      page.clear();
      for (const t of c.tools ?? []) page.set(t.name, t);
    },
    clearContext: () => page.clear(),
  };
  const stop = ctx.sdk.bridgeWebMcp(sink, { modelContext: mc } as unknown as Navigator);
  ok(stop, "the bridge starts when navigator.modelContext exists");
  eq(ctx.sdk.bridgeWebMcp(sink, {} as Navigator), null, "no bridge without navigator.modelContext");
  const hostNames = () => reg.list().filter((t) => t.kind === "host").map((t) => t.name).sort();

  mc.registerTool({ name: "read", description: "The page's reader.", execute: () => "page read" });
  eq(hostNames(), ["page_read"], "a built-in's name is offered with a prefix");
  eq(page.has("read"), true, "the page's own registry still has the tool");
  eq(ctx.sdk.hostToolName("files__read"), "page_files_read", "a name like an MCP tool's is offered without the reserved __");
  eq(ctx.sdk.hostToolName("elicitation"), "page_elicitation", "the name of MCP servers' questions is offered with a prefix");

  mc.provideContext({
    tools: [
      { name: "greet", inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] }, execute: ({ who }: { who: string }) => ({ content: [{ type: "text", text: `hi ${who}` }] }) },
      { name: "cart.total", description: "Total.", execute: () => ({ total: 12 }) },
      { name: "broken", description: "Fails.", execute: () => ({ content: [{ type: "text", text: "out of stock" }], isError: true }) },
    ],
  });
  eq(hostNames(), ["broken", "greet", "page_cart_total"], "provideContext replaced the tools");
  const vfs = await freshVfs();
  const run = (name: string, args: unknown): Promise<ToolResult> => reg.execute(name, args, { vfs });
  eq(await run("greet", { who: "ada" }), { ok: true, output: "hi ada" }, "text content reaches the model as text");
  eq(await run("page_cart_total", {}), { ok: true, output: '{"total":12}', value: { total: 12 } }, "other values as JSON: the text the model reads, the data the RTC keeps");
  const failed = await run("broken", {});
  ok(!failed.ok, "isError is a tool error");
  includes(failed.ok ? "" : failed.error, "out of stock");
  const bad = await run("greet", {});
  ok(!bad.ok, "the page's input schema validates the arguments");

  mc.unregisterTool("greet");
  eq(hostNames(), ["broken", "page_cart_total"], "unregisterTool withdraws the tool");
  mc.clearContext();
  eq(hostNames(), [], "clearContext withdraws every page tool");

  mc.registerTool({ name: "late", description: "Late.", execute: () => "x" });
  stop!();
  eq(hostNames(), [], "stopping removes the page tools");
  eq(mc.registerTool, registerTool, "stopping restores the page's registerTool");
});
