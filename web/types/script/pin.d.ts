import { type VirtualFS } from "../vfs/index.js";
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
export declare function readSavedScript(vfs: VirtualFS, name: string): Promise<ScriptPreview>;
/** The preview of a `script` call's arguments when it is a `run`, else null. */
export declare function previewOfCall(vfs: VirtualFS, args: unknown): Promise<ScriptPreview | null>;
