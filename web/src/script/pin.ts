// What a confirmation of `script run <name>` shows and pins: the saved code and
// its SHA-256. The run executes the code only while the file still has the hash
// the person approved.

import { isVfsError, type VirtualFS } from "../vfs/index.js";
import { sha256Hex } from "../util/hash.js";
import { ScriptError, scriptPath } from "./runner.js";

/** A saved script as the person is shown it. */
export interface ScriptPreview {
  name: string;
  path: string;
  /** The code; null when no script is saved under the name. */
  code: string | null;
  /** SHA-256 of the code (hex); null when there is none. */
  sha256: string | null;
}

/**
 * Reads the script saved under `name`.
 * @throws ScriptError for an invalid name; VfsError for other read failures.
 */
export async function readSavedScript(vfs: VirtualFS, name: string): Promise<ScriptPreview> {
  const path = scriptPath(name);
  try {
    const code = await vfs.readFile(path);
    return { name, path, code, sha256: await sha256Hex(code) };
  } catch (err) {
    if (isVfsError(err, "ENOENT") || isVfsError(err, "EISDIR")) return { name, path, code: null, sha256: null };
    throw err;
  }
}

/** The preview of a `script` call's arguments when it is a `run`, else null. */
export async function previewOfCall(vfs: VirtualFS, args: unknown): Promise<ScriptPreview | null> {
  if (typeof args !== "object" || args === null) return null;
  const { action, name } = args as { action?: unknown; name?: unknown };
  if (action !== "run" || typeof name !== "string") return null;
  try {
    return await readSavedScript(vfs, name);
  } catch (err) {
    if (err instanceof ScriptError) return null; // the run fails on the name alone
    throw err;
  }
}
