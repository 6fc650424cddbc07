// useTool: a host tool that exists while the component is mounted. It is
// registered when the component mounts (or the agent appears) and unregistered
// when it unmounts. `execute` is read from a ref at each call, so a re-render with
// a new function (one that closes over new state) changes nothing else; the tool
// is registered again only when its name, description, parameters or approval
// rule change (a schema object by identity: define it outside the component).

import type { Agent } from "@rtc-agent/web/headless";
import { useEffect, useRef } from "react";
import { useAgentContext } from "./agent.js";

type ToolDefinition = Parameters<Agent["registerTool"]>[0];

/** What useTool takes besides the name: the SDK's host tool definition, `execute` (or `handler`) running each call. */
export type UseToolOptions<Args = any> = Omit<ToolDefinition, "name" | "handler" | "execute"> & {
  /** Runs one call with the model's arguments; a string or JSON data is the result, a throw an error. */
  execute: (args: Args, call: { rtcId?: string }) => unknown;
  /**
   * Whether a call asks the person first: `true`, `false` (never asks), or decided
   * from the arguments. Omitted: as the work mode says for host tools.
   */
  needsApproval?: boolean | ((args: Args) => boolean | Promise<boolean>);
};

export function useTool<Args = any>(name: string, options: UseToolOptions<Args>): void {
  const agent = useAgentContext();
  const latest = useRef(options);
  latest.current = options;
  const { execute: _execute, ...spec } = options as UseToolOptions<Args> & Record<string, unknown>;
  const key = specKey(spec);

  useEffect(() => {
    if (!agent) return;
    const current = latest.current as UseToolOptions<Args> & Record<string, unknown>;
    const def: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(current)) {
      // Functions (needsApproval) are read at each call too, like execute.
      def[k] = typeof v === "function" ? (...a: unknown[]) => (latest.current as unknown as Record<string, (...x: unknown[]) => unknown>)[k]!(...a) : v;
    }
    const run = (args: unknown, call?: { rtcId?: string }) => latest.current.execute(args as Args, call ?? {});
    // `execute` for SDKs that name it so, `handler` for those that do not.
    agent.registerTool({ ...def, name, execute: run, handler: run } as unknown as ToolDefinition);
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
