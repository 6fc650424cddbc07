// The browser's own copy of the work-mode permission matrix (docs/protocol.md,
// "Work modes"). The server decides `needs_confirmation` per call; the executor
// asks when either the server or this matrix says so, so a faulty or compromised
// server cannot make a call run that the person would have been asked about.
//
// Protected paths are those whose content later becomes instructions or code:
// /AGENT.md goes to the model with every message, /.scripts/ holds the code that
// `script run` executes. Changing them asks in every mode except bypass, whether
// the model calls write/edit itself or a script it runs calls rtcAgent.fs. A path
// that reads as a protected one (NFKC, case folding, UTS #39 confusables:
// `/agent.md`, `/АGENT.md` with a Cyrillic А, `/AGENT.md\u3164`) asks like it.

import type { RpcMethod } from "../script/protocol.js";
import type { ToolKind } from "../tools/types.js";
import { looksLikeAncestor, looksLikeWithin } from "../vfs/confusables.js";
import { normalizePath } from "../vfs/path.js";
import { pathWarnings } from "../vfs/warnings.js";

export const PROTECTED_PATHS: readonly string[] = ["/AGENT.md", "/.scripts"];

export interface Decision {
  /** Plan mode: the call would not run. */
  refused: boolean;
  needsConfirmation: boolean;
}

const RUN: Decision = { refused: false, needsConfirmation: false };
const ASK: Decision = { refused: false, needsConfirmation: true };
const REFUSE: Decision = { refused: true, needsConfirmation: false };

/** The matrix by tool kind. An unknown or missing mode counts as manual. */
export function decide(mode: string | undefined, kind: ToolKind): Decision {
  if (kind === "read" || kind === "ask") return RUN;
  if (mode === "bypass") return RUN;
  if (mode === "plan") return REFUSE;
  if (kind === "write" && mode === "edit") return RUN;
  return ASK;
}

/**
 * The matrix for one call: a write or edit of a protected path asks in every mode
 * except bypass. A path the VFS would refuse counts as not protected: nothing is
 * written.
 */
export function decideCall(mode: string | undefined, kind: ToolKind, args: unknown): Decision {
  const d = decide(mode, kind);
  if (kind === "write" && !d.refused && mode !== "bypass" && isProtectedPath(pathArg(args))) return ASK;
  return d;
}

/** True when `path` is a protected path or lies below one, or reads as if it did. */
export function isProtectedPath(path: unknown): boolean {
  return protectedRootOf(path) !== null;
}

/** The protected path that `path` is, lies below, or reads as (`/АGENT.md` → `/AGENT.md`); null if none. */
export function protectedRootOf(path: unknown): string | null {
  const p = normalized(path);
  if (p === null) return null;
  return PROTECTED_PATHS.find((root) => p === root || p.startsWith(root + "/") || looksLikeWithin(p, root)) ?? null;
}

/**
 * True when changing `path` changes a protected path: it is one, lies below one,
 * or holds one (removing or renaming `/` takes /AGENT.md with it), or reads so.
 */
export function touchesProtected(path: unknown): boolean {
  const p = normalized(path);
  if (p === null) return false;
  return isProtectedPath(p) || PROTECTED_PATHS.some((root) => looksLikeAncestor(p, root));
}

/**
 * Why the target path of a call may not read as what it is (long, mixed scripts,
 * invisible characters, looks like a protected path without being it); empty
 * when it reads plainly. Such a call is never covered by "Allow for this chat".
 */
export function targetWarnings(path: unknown): string[] {
  if (typeof path !== "string") return [];
  const out = pathWarnings(path);
  const root = protectedRootOf(path);
  const p = normalized(path);
  if (root && p !== null && p !== root && !p.startsWith(root + "/")) {
    out.push(`It reads as the protected path ${root} but is another name, so it asks like ${root}.`);
  }
  return out;
}

/** A call a running script makes that needs the person's yes. */
export interface ScriptCallAsk {
  /** What is called: a host tool's name, or `rtcAgent.fs.<method>`. */
  tool: string;
  args: unknown;
  /** One line for the prompt. */
  title: string;
  /** The host tool's own `needsApproval` asked (not the work mode). */
  byTool?: boolean;
}

const FS_CHANGES: ReadonlySet<RpcMethod> = new Set(["fs.write", "fs.remove", "fs.rename", "fs.mkdir"]);

/**
 * Whether a call from inside a script asks, the same way a direct call would: a
 * host function where the host tool would (manual, edit; plan too, since a script
 * should not run there at all), a change of a protected path in every mode except
 * bypass. Null: serve it at once.
 */
export function scriptCallAsk(mode: string | undefined, method: RpcMethod, args: unknown[]): ScriptCallAsk | null {
  if (method === "call") {
    const name = typeof args[0] === "string" ? args[0] : String(args[0]);
    const d = decide(mode, "host");
    if (!d.needsConfirmation && !d.refused) return null;
    return { tool: name, args: args[1], title: `The script calls the host tool ${name}` };
  }
  if (!FS_CHANGES.has(method) || mode === "bypass") return null;
  const paths = method === "fs.rename" ? [args[0], args[1]] : [args[0]];
  const hit = paths.find((p) => touchesProtected(p));
  if (hit === undefined) return null;
  return { tool: `rtcAgent.${method}`, args, title: `The script changes the protected path ${String(hit)}` };
}

function pathArg(args: unknown): unknown {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as { path?: unknown }).path : undefined;
}

function normalized(path: unknown): string | null {
  try {
    return normalizePath(path);
  } catch {
    return null;
  }
}

/**
 * Whether "Allow for this chat" may cover a call: host tools, and write or edit
 * of a path that is not protected and reads plainly (no targetWarnings). A script runs code and saves into /.scripts/,
 * and protected paths ask every time, so neither is ever covered (the server
 * applies the same rule).
 */
export function allowableForChat(tool: string, kind: ToolKind | undefined, args: unknown): boolean {
  if (kind === "host") return true;
  if (tool === "write" || tool === "edit") {
    const path = pathArg(args);
    return typeof path === "string" && !touchesProtected(path) && targetWarnings(path).length === 0;
  }
  return false;
}

/** True when the session allows `tool` for the whole chat and the call is one that may be covered. */
export function allowedForChat(approvals: readonly { tool: string }[] | undefined, tool: string, kind: ToolKind | undefined, args: unknown): boolean {
  return !!approvals?.some((a) => a.tool === tool) && allowableForChat(tool, kind, args);
}
