// Serves the calls a script makes through `rtcAgent` (fs.* and call). Everything
// arriving here comes from model-written code: check every argument, answer with
// plain JSON data, never hand out objects with behaviour.

import { VfsError, type VfsStat, type VirtualFS } from "../vfs/index.js";
import { describeType } from "../vfs/path.js";
import type { RpcMethod, WireError } from "./protocol.js";

/**
 * A host site's function callable from scripts as `rtcAgent.call(name, args)`.
 * `args` is whatever JSON the script passed; the return value must be
 * JSON-serialisable (it is sent back as JSON).
 */
export type HostFunction = (args: unknown) => unknown;

/** Where the script API looks up host functions by name. */
export type HostFunctionLookup = {
  get(name: string): HostFunction | undefined;
  names(): string[];
};

/** Plain-data view of a VFS entry as scripts see it. */
function entry(s: VfsStat) {
  return { path: s.path, name: s.name, type: s.type, size: s.size, mtime: s.mtime };
}

export async function serveCall(
  method: RpcMethod,
  args: unknown[],
  vfs: VirtualFS,
  functions: HostFunctionLookup,
): Promise<unknown> {
  const str = (i: number, what: string): string => {
    const v = args[i];
    if (typeof v !== "string") throw new TypeError(`rtcAgent.${method}: ${what} must be a string, got ${describeType(v)}`);
    return v;
  };
  switch (method) {
    case "fs.read":
      return vfs.readFile(str(0, "path"));
    case "fs.write": {
      const r = await vfs.writeFile(str(0, "path"), str(1, "content"));
      return { path: r.path, bytes: r.bytes, created: r.created };
    }
    case "fs.ls":
      return (await vfs.readdir(str(0, "path"))).map(entry);
    case "fs.stat":
      return entry(await vfs.stat(str(0, "path")));
    case "fs.exists":
      return vfs.exists(str(0, "path"));
    case "fs.mkdir":
      return vfs.mkdir(str(0, "path"));
    case "fs.remove":
      return vfs.remove(str(0, "path"));
    case "fs.rename":
      return vfs.rename(str(0, "from"), str(1, "to"));
    case "fs.walk":
      return (await vfs.walk(str(0, "path"))).map(entry);
    case "call":
      return callHost(str(0, "name"), args[1], functions);
    default:
      throw new TypeError(`unknown rtcAgent method ${String(method)}`);
  }
}

async function callHost(name: string, input: unknown, functions: HostFunctionLookup): Promise<unknown> {
  const fn = functions.get(name);
  if (!fn) {
    const known = functions.names();
    throw new ReferenceError(
      `no host function named ${JSON.stringify(name)}; available: ${known.length ? known.join(", ") : "(none)"}`,
    );
  }
  const value = await fn(input);
  if (value === undefined) return undefined;
  // A JSON round trip keeps host objects (DOM nodes, class instances with
  // methods) from leaking structure into the sandbox and fails clearly instead.
  try {
    const json = JSON.stringify(value);
    return json === undefined ? undefined : JSON.parse(json);
  } catch (err) {
    throw new TypeError(`host function ${name} returned a value that is not JSON-serialisable: ${(err as Error).message}`);
  }
}

/** Flattens a host-side failure for the worker, keeping the VFS error code. */
export function toWire(err: unknown): WireError {
  if (err instanceof VfsError) return { name: "VfsError", message: err.message, code: err.code };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: "Error", message: String(err) };
}
