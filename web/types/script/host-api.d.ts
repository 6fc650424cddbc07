import { type VirtualFS } from "../vfs/index.js";
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
export declare function serveCall(method: RpcMethod, args: unknown[], vfs: VirtualFS, functions: HostFunctionLookup): Promise<unknown>;
/** Flattens a host-side failure for the worker, keeping the VFS error code. */
export declare function toWire(err: unknown): WireError;
