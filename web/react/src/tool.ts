// useTool: a host tool that exists while the component is mounted. It is
// registered when the component mounts (or the agent appears) and unregistered
// when it unmounts. `execute` is read from a ref at each call, so a re-render with
// a new function (one that closes over new state) changes nothing else; the tool
// is registered again only when its name, description, parameters or approval
// rule change (a schema object by identity: define it outside the component).

import type { HostToolCall, HostToolDefinition, ToolArgs, ToolParameters } from "@rtc-agent/web/headless";
import { useEffect, useRef } from "react";
import { useAgentContext } from "./agent.js";

/**
 * What useTool takes besides the name: the SDK's host tool definition
 * (`description`, `parameters` as a JSON Schema or a Standard Schema such as zod,
 * `jsonSchema`, `needsApproval`) with `execute`, which gets the validated
 * arguments, typed from `parameters`.
 */
export type UseToolOptions<P extends ToolParameters = ToolParameters, Args = ToolArgs<P>> = Omit<HostToolDefinition<P, Args>, "name" | "handler" | "execute"> & {
  /** Runs one call; a string or JSON data is the result, a throw an error the model reads. */
  execute: (args: Args, call: HostToolCall) => unknown;
};

/**
 * Registers a tool while the component is mounted: by name and options, or a
 * whole definition made with `defineTool` (kept outside the component; its name
 * and result type then type the chat's tool parts, `InferToolTypes`).
 */
export function useTool<const P extends ToolParameters, const N extends string, R>(tool: HostToolDefinition<P, ToolArgs<P>, N, R>): void;
export function useTool<const P extends ToolParameters = ToolParameters>(name: string, options: UseToolOptions<P>): void;
export function useTool(a: string | HostToolDefinition, b?: UseToolOptions): void {
  const { name, handler, ...rest } = typeof a === "string" ? { ...b!, name: a, handler: undefined } : a;
  const run = rest.execute ?? handler;
  if (!run) throw new TypeError(`useTool ${JSON.stringify(name)}: execute is required`);
  useToolOf(name, { ...rest, execute: run } as UseToolOptions);
}

function useToolOf<const P extends ToolParameters = ToolParameters>(name: string, options: UseToolOptions<P>): void {
  const agent = useAgentContext();
  const latest = useRef(options);
  latest.current = options;
  const { execute: _execute, ...spec } = options as UseToolOptions<P> & Record<string, unknown>;
  const key = specKey(spec);

  useEffect(() => {
    if (!agent) return;
    const current = latest.current as UseToolOptions<P> & Record<string, unknown>;
    const def: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(current)) {
      // Functions (needsApproval) are read at each call too, like execute.
      def[k] = typeof v === "function" ? (...a: unknown[]) => (latest.current as unknown as Record<string, (...x: unknown[]) => unknown>)[k]!(...a) : v;
    }
    const run = (args: ToolArgs<P>, call: HostToolCall) => latest.current.execute(args, call ?? {});
    agent.registerTool({ ...def, name, execute: run } as HostToolDefinition<P, ToolArgs<P>>);
    return () => agent.unregisterTool(name);
  }, [agent, name, key]);
}

/** Identifies a definition by value: plain data as JSON, a function as "a function", other objects (schemas) by identity. */
const ids = new WeakMap<object, number>();
let nextId = 0;
function specKey(spec: Record<string, unknown>): string {
  return JSON.stringify(spec, (_k, v: unknown) => {
    if (typeof v === "function") return "#function";
    if (v && typeof v === "object" && !isPlain(v)) {
      let id = ids.get(v as object);
      if (id === undefined) ids.set(v as object, (id = ++nextId));
      return `#ref${id}`;
    }
    return v;
  });
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null || Array.isArray(v);
}
