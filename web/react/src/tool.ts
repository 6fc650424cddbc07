// useTool: a host tool that exists while the component is mounted. It is
// registered when the component mounts (or the agent appears) and unregistered
// when it unmounts. `execute` is read from a ref at each call, so a re-render with
// a new function (one that closes over new state) changes nothing else; the tool
// is registered again only when its name, description, parameters or approval
// rule change (a schema object by identity: define it outside the component).
// Its `render` may return React content: each call's card then holds a React
// root of its own, rendered again as the call changes and unmounted with the
// tool.

import type { HostToolCall, HostToolDefinition, ToolArgs, ToolParameters, ToolView } from "@rtc-agent/web/headless";
import { useEffect, useRef, type ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";
import { useAgentContext } from "./agent.js";

/**
 * What useTool takes besides the name: the SDK's host tool definition
 * (`description`, `parameters` as a JSON Schema or a Standard Schema such as zod,
 * `jsonSchema`, `needsApproval`) with `execute`, which gets the validated
 * arguments, typed from `parameters`.
 */
export type UseToolOptions<P extends ToolParameters = ToolParameters, Args = ToolArgs<P>> = Omit<HostToolDefinition<P, Args>, "name" | "handler" | "execute" | "render"> & {
  /** Runs one call; a string or JSON data is the result, a throw an error the model reads. */
  execute: (args: Args, call: HostToolCall) => unknown;
  /** Shows a call in the chat's tool card: React content (or a DOM node, or text); see ToolRender. */
  render?: ToolRender<Args>;
};

/**
 * A tool's `render` in React: the call as it stands (`state`, `args`, `output`,
 * `error`) → React content, a DOM node or text. React content goes into a
 * root of the call's own in its card, rendered again at each change of the
 * call (state inside it is kept between them) and unmounted when the tool is.
 * Null shows nothing.
 */
export type ToolRender<Args = unknown, R = unknown> = (view: ToolView<Args, R>) => ReactNode | Node;

/** A host tool definition (`defineTool`) whose `render` may return React content. */
export type ReactToolDefinition<P = ToolParameters, Args = ToolArgs<P>, N extends string = string, R = unknown> = Omit<HostToolDefinition<P, Args, N, R>, "render"> & {
  render?: ToolRender<Args, Awaited<R>>;
};

/**
 * Registers a tool while the component is mounted: by name and options, or a
 * whole definition made with `defineTool` (kept outside the component; its name
 * and result type then type the chat's tool parts, `InferToolTypes`).
 */
export function useTool<const P extends ToolParameters, const N extends string, R>(tool: ReactToolDefinition<P, ToolArgs<P>, N, R>): void;
export function useTool<const P extends ToolParameters = ToolParameters>(name: string, options: UseToolOptions<P>): void;
export function useTool(a: string | ReactToolDefinition, b?: UseToolOptions): void {
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
    const views = new CallRoots();
    if (current.render) def.render = (view: ToolView<ToolArgs<P>>) => views.show(view.callId, latest.current.render?.(view) ?? null);
    agent.registerTool({ ...def, name, execute: run } as HostToolDefinition<P, ToolArgs<P>>);
    return () => {
      agent.unregisterTool(name);
      views.unmount();
    };
  }, [agent, name, key]);
}

/** The React roots of one tool's calls, by call id. */
class CallRoots {
  private readonly roots = new Map<string, { el: HTMLElement; root: Root }>();

  /** What the card shows for a render's result: a node or text as they are, React content in the call's root. */
  show(callId: string, out: ReactNode | Node): Node | string | null {
    if (out === null || out === undefined || typeof out === "boolean") return null;
    if (typeof out === "string" || out instanceof Node) return out;
    let r = this.roots.get(callId);
    if (!r) {
      const el = document.createElement("div");
      r = { el, root: createRoot(el) };
      this.roots.set(callId, r);
    }
    r.root.render(out);
    return r.el;
  }

  /** Unmounts every root, after the render under way (React refuses to unmount a root while it renders). */
  unmount(): void {
    const roots = [...this.roots.values()];
    this.roots.clear();
    queueMicrotask(() => {
      for (const r of roots) r.root.unmount();
    });
  }
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
