import type { RpcMethod } from "../script/protocol.js";
import type { ToolKind } from "../tools/types.js";
export declare const PROTECTED_PATHS: readonly string[];
export interface Decision {
    /** Plan mode: the call would not run. */
    refused: boolean;
    needsConfirmation: boolean;
}
/** The matrix by tool kind. An unknown or missing mode counts as manual. */
export declare function decide(mode: string | undefined, kind: ToolKind): Decision;
/**
 * The matrix for one call: a write or edit of a protected path asks in every mode
 * except bypass. A path the VFS would refuse counts as not protected: nothing is
 * written.
 */
export declare function decideCall(mode: string | undefined, kind: ToolKind, args: unknown): Decision;
/** True when `path` is a protected path or lies below one. */
export declare function isProtectedPath(path: unknown): boolean;
/**
 * True when changing `path` changes a protected path: it is one, lies below one,
 * or holds one (removing or renaming `/` takes /AGENT.md with it).
 */
export declare function touchesProtected(path: unknown): boolean;
/** A call a running script makes that needs the person's yes. */
export interface ScriptCallAsk {
    /** What is called: a host tool's name, or `rtcAgent.fs.<method>`. */
    tool: string;
    args: unknown;
    /** One line for the prompt. */
    title: string;
}
/**
 * Whether a call from inside a script asks, the same way a direct call would: a
 * host function where the host tool would (manual, edit; plan too, since a script
 * should not run there at all), a change of a protected path in every mode except
 * bypass. Null: serve it at once.
 */
export declare function scriptCallAsk(mode: string | undefined, method: RpcMethod, args: unknown[]): ScriptCallAsk | null;
