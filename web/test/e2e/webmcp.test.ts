// WebMCP page tools: a page that registers tools with navigator.modelContext gets
// them offered to the agent as host tools. Chromium has the API only behind an
// origin trial, so the page gets a minimal polyfill of the explainer's API
// (registerTool, unregisterTool, provideContext, clearContext, plus the
// modelContextTesting listTools/executeTool the preview builds expose), installed
// before any script of the page runs.

import { eq, includes, ok, test } from "./harness.js";
import { host } from "./context.js";
import { AgentPage, newProfile } from "./pages.js";
import { GoServer } from "./servers.js";

/** The polyfill, with one tool registered before the SDK loads. */
function polyfill(): void {
  type Tool = { name: string; description?: string; inputSchema?: object; execute: (input: unknown, client: unknown) => unknown };
  const tools = new Map<string, Tool>();
  const client = { requestUserInteraction: async (cb: () => unknown) => cb() };
  const modelContext = {
    registerTool(tool: Tool) {
      if (tools.has(tool.name)) throw new Error(`duplicate tool ${tool.name}`);
      tools.set(tool.name, tool);
    },
    unregisterTool(name: string) {
      tools.delete(name);
    },
    provideContext(ctx: { tools?: Tool[] }) {
      tools.clear();
      for (const t of ctx.tools ?? []) tools.set(t.name, t);
    },
    clearContext() {
      tools.clear();
    },
  };
  const modelContextTesting = {
    listTools: () => [...tools.values()].map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: JSON.stringify(t.inputSchema ?? {}) })),
    executeTool: async (name: string, json: string) => JSON.stringify(await tools.get(name)!.execute(JSON.parse(json), client)),
  };
  Object.defineProperty(navigator, "modelContext", { value: modelContext, configurable: true });
  Object.defineProperty(navigator, "modelContextTesting", { value: modelContextTesting, configurable: true });
  const cart: string[] = [];
  (window as unknown as { cart: string[] }).cart = cart;
  modelContext.registerTool({
    name: "get-cart",
    description: "Lists the items in the shopping cart.",
    inputSchema: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: cart.length ? cart.join(", ") : "empty" }] }),
  });
}

test("WebMCP page tools are offered to the agent and their results reach the answer", async () => {
  const go = await GoServer.start({
    script: {
      name: "webmcp",
      turns: [
        {
          match: "(?i)buy",
          steps: [
            { tool_calls: [{ name: "add_to_cart", arguments: { item: "apples" } }] },
            { tool_calls: [{ name: "get-cart", arguments: {} }] },
            { chunks: ["Your cart: ", "{{last_result}}", "."] },
          ],
        },
        { match: "(?i)again", steps: [{ tool_calls: [{ name: "add_to_cart", arguments: { item: "pears" } }] }, { chunks: ["Result: {{last_result}}"] }] },
      ],
    },
  });
  const ctx = await newProfile();
  await ctx.addInitScript(polyfill);
  const p = await AgentPage.open(ctx, host.url(go));
  // A tool the page registers while the agent runs.
  await p.page.evaluate(() => {
    (navigator as unknown as { modelContext: { registerTool(t: object): void } }).modelContext.registerTool({
      name: "add_to_cart",
      description: "Adds an item to the shopping cart.",
      inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
      execute: async ({ item }: { item: string }) => {
        (window as unknown as { cart: string[] }).cart.push(item);
        return { content: [{ type: "text", text: `added ${item}` }] };
      },
    });
  });
  await p.setMode("bypass");
  await p.send("buy apples");
  const answer = await p.waitForAnswer("Your cart:");
  eq(answer.trim(), "Your cart: apples.", "the page tool's result reached the answer");
  eq(await p.page.evaluate(() => (window as unknown as { cart: string[] }).cart), ["apples"], "the page tool ran once");
  const sent = p.rpcs.find((r) => r.method === "v1.message.send");
  ok(sent, "a message was sent");
  const tools = (sent!.data.tools ?? []) as { name: string; description: string; parameters: { required?: string[] } }[];
  const add = tools.find((t) => t.name === "add_to_cart");
  eq(add?.parameters.required, ["item"], "the page's input schema was passed on");
  eq(tools.find((t) => t.name === "get-cart")?.description, "Lists the items in the shopping cart.", "a tool registered before the SDK was found");

  // The page withdraws a tool: the next message no longer offers it, and a call
  // of it fails without running anything of the page.
  await p.page.evaluate(() => (navigator as unknown as { modelContext: { unregisterTool(n: string): void } }).modelContext.unregisterTool("add_to_cart"));
  await p.send("again");
  const again = await p.waitForAnswer("Result:");
  includes(again, "Tool Error", "the withdrawn tool's call failed");
  const sends = p.rpcs.filter((r) => r.method === "v1.message.send");
  const later = (sends[sends.length - 1]!.data.tools ?? []) as { name: string }[];
  eq(later.map((t) => t.name).filter((n) => n === "get-cart" || n === "add_to_cart"), ["get-cart"], "only the remaining page tool is offered");
  eq(await p.page.evaluate(() => (window as unknown as { cart: string[] }).cart), ["apples"], "nothing more was added");
  eq(p.errors, [], "no page errors");
});
