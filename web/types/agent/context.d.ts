import type { VirtualFS } from "../vfs/vfs.js";
export declare const AGENT_MD_PATH = "/AGENT.md";
/** The server's limit for `context.agent_md`, in UTF-8 bytes. */
export declare const AGENT_MD_MAX_BYTES: number;
/**
 * `text` as it fits in `maxBytes` UTF-8 bytes: unchanged when it fits, else its
 * beginning (never half a character) and a line that says how much was left out.
 */
export declare function capAgentMd(text: string, maxBytes?: number): string;
/** `/AGENT.md`, capped, or undefined when it is missing, empty or unreadable. */
export declare function readAgentMd(vfs: VirtualFS, maxBytes?: number): Promise<string | undefined>;
