// WebMCP page tools: a page that registers tools with `navigator.modelContext`
// (the WebMCP API, behind an origin trial in Chromium) gets them offered to the
// agent as host tools, with their names, descriptions and input schemas, as
// long as the page keeps them registered.
//
// The page-facing API has no way to list tools, so the bridge watches it: it
// wraps `registerTool`, `unregisterTool`, `provideContext` and `clearContext`
// (calling the page's implementation first, so the browser's own agent sees the
// same tools), and takes the tools registered before the agent started from
// `navigator.modelContextTesting.listTools()` when the browser offers it.
// A call runs the tool's `execute(input, client)`; a result of MCP content
// blocks (`{content: [{type: "text", text}], isError}`) reaches the model as its
// text, `isError` as a tool error; any other value as it is.

import type { HostToolDefinition, ToolParameters } from "../tools/typed.js";

/** A tool as the page registers it (the WebMCP explainer's ModelContextTool). */
export interface ModelContextTool {
  name: string;
  description?: string;
  inputSchema?: object;
  execute: (input: unknown, client: ModelContextClient) => unknown;
  annotations?: { readOnlyHint?: boolean };
}

/** What `execute` gets as its second argument. */
export interface ModelContextClient {
  requestUserInteraction<T>(callback: () => Promise<T> | T): Promise<T>;
}

interface ModelContext {
  registerTool(tool: ModelContextTool): unknown;
  unregisterTool?(name: string): unknown;
  provideContext?(context: { tools?: ModelContextTool[] }): unknown;
  clearContext?(): unknown;
}

interface ModelContextTesting {
  listTools(): { name: string; description?: string; inputSchema?: string | object }[];
  executeTool(name: string, inputJson: string): Promise<string | null>;
}

/** The agent side: where page tools are registered as host tools. */
export interface HostToolSink {
  // any: a page tool's arguments are known only at run time
  registerTool(def: HostToolDefinition<any, any>): void;
  unregisterTool(name: string): void;
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
// Names a page tool cannot have: the built-ins' and that of MCP servers' questions.
const BUILTIN = new Set(["ls", "read", "write", "edit", "grep", "find", "script", "askUser", "elicitation"]);

/**
 * The host tool name for a page tool: its own name when the server accepts it,
 * else `page_` and the name with other characters replaced by `_` and runs of `_`
 * made one (a host tool name has no `__`, which the server keeps for its MCP
 * tools), or null when nothing usable is left.
 */
export function hostToolName(pageName: string): string | null {
  if (NAME.test(pageName) && !BUILTIN.has(pageName) && !pageName.includes("__")) return pageName;
  const alt = `page_${pageName.replace(/[^A-Za-z0-9_-]/g, "_").replace(/_{2,}/g, "_")}`;
  return NAME.test(alt) ? alt : null;
}

/** The text the model sees for a WebMCP result; throws for `isError`. */
export function resultOf(value: unknown): unknown {
  if (!value || typeof value !== "object" || !Array.isArray((value as { content?: unknown }).content)) return value;
  const r = value as { content: unknown[]; isError?: boolean };
  const text = r.content.map((b) => (b && typeof b === "object" && (b as { type?: unknown }).type === "text" ? String((b as { text?: unknown }).text ?? "") : JSON.stringify(b))).join("\n");
  if (r.isError) throw new Error(text || "the page tool failed");
  return text;
}

const client: ModelContextClient = { requestUserInteraction: async (cb) => cb() };

/**
 * Starts offering the page's WebMCP tools to `sink`. Returns a function that
 * stops (restores the page's API and removes the tools), or null when the
 * browser has no `navigator.modelContext`.
 */
export function bridgeWebMcp(sink: HostToolSink, nav: Navigator = globalThis.navigator): (() => void) | null {
  const mc = (nav as Navigator & { modelContext?: ModelContext } | undefined)?.modelContext;
  if (!mc || typeof mc.registerTool !== "function") return null;
  const testing = (nav as Navigator & { modelContextTesting?: ModelContextTesting }).modelContextTesting;
  const offered = new Map<string, string>(); // page name → host tool name

  const offer = (name: string, description: string, schema: unknown, run: (input: unknown) => Promise<unknown>) => {
    withdraw(name);
    const host = hostToolName(name);
    if (!host || [...offered.values()].includes(host)) return;
    const parameters = (schema && typeof schema === "object" ? schema : { type: "object", properties: {} }) as ToolParameters;
    try {
      sink.registerTool({ name: host, description: description || `The page's tool ${name}.`, parameters, execute: run });
      offered.set(name, host);
    } catch {
      // A tool the agent refuses (bad schema, taken name) stays the page's own.
    }
  };
  const withdraw = (name: string) => {
    const host = offered.get(name);
    if (host === undefined) return;
    offered.delete(name);
    sink.unregisterTool(host);
  };
  const offerTool = (t: ModelContextTool) => {
    if (!t || typeof t.name !== "string" || typeof t.execute !== "function") return;
    const execute = t.execute;
    offer(t.name, t.description ?? "", t.inputSchema, async (input) => resultOf(await execute.call(t, input ?? {}, client)));
  };

  // Tools the page registered before the agent started.
  if (testing && typeof testing.listTools === "function" && typeof testing.executeTool === "function") {
    for (const info of testing.listTools()) {
      let schema: unknown = info.inputSchema;
      if (typeof schema === "string") {
        try {
          schema = JSON.parse(schema);
        } catch {
          schema = undefined;
        }
      }
      offer(info.name, info.description ?? "", schema, async (input) => {
        const out = await testing.executeTool(info.name, JSON.stringify(input ?? {}));
        if (out === null) throw new Error("the page navigated away while the tool ran");
        let parsed: unknown = out;
        try {
          parsed = JSON.parse(out);
        } catch {
          // a plain text result
        }
        return resultOf(parsed);
      });
    }
  }

  const original = { registerTool: mc.registerTool, unregisterTool: mc.unregisterTool, provideContext: mc.provideContext, clearContext: mc.clearContext };
  const own = Object.fromEntries(Object.keys(original).map((k) => [k, Object.prototype.hasOwnProperty.call(mc, k)]));
  mc.registerTool = function (tool) {
    const r = original.registerTool.call(this, tool);
    offerTool(tool);
    return r;
  };
  if (original.unregisterTool) {
    mc.unregisterTool = function (name) {
      const r = original.unregisterTool!.call(this, name);
      withdraw(name);
      return r;
    };
  }
  if (original.provideContext) {
    mc.provideContext = function (context) {
      const r = original.provideContext!.call(this, context);
      for (const name of [...offered.keys()]) withdraw(name);
      for (const t of context?.tools ?? []) offerTool(t);
      return r;
    };
  }
  if (original.clearContext) {
    mc.clearContext = function () {
      const r = original.clearContext!.call(this);
      for (const name of [...offered.keys()]) withdraw(name);
      return r;
    };
  }
  return () => {
    for (const [k, fn] of Object.entries(original)) {
      if (own[k]) Object.assign(mc, { [k]: fn });
      else delete (mc as unknown as Record<string, unknown>)[k];
    }
    for (const name of [...offered.keys()]) withdraw(name);
  };
}
