// The page's standing instructions for the model: `/AGENT.md` in the virtual file
// system, sent with every message as `context.agent_md` (at most 32 KiB; a longer
// file is cut at a character boundary and says so at its end).

import type { VirtualFS } from "../vfs/vfs.js";

export const AGENT_MD_PATH = "/AGENT.md";
/** The server's limit for `context.agent_md`, in UTF-8 bytes. */
export const AGENT_MD_MAX_BYTES = 32 * 1024;

/**
 * `text` as it fits in `maxBytes` UTF-8 bytes: unchanged when it fits, else its
 * beginning (never half a character) and a line that says how much was left out.
 */
export function capAgentMd(text: string, maxBytes = AGENT_MD_MAX_BYTES): string {
  const enc = new TextEncoder();
  const bytes = enc.encode(text);
  if (bytes.length <= maxBytes) return text;
  const note = (kept: number) => `\n\n[AGENT.md truncated: the first ${kept} of ${bytes.length} bytes are shown; the rest is left out.]`;
  // The note's own length depends on the number it prints; the longest number bounds it.
  let end = Math.max(0, maxBytes - enc.encode(note(maxBytes)).length);
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--; // back to the start of a character
  const head = new TextDecoder().decode(bytes.subarray(0, end));
  return head + note(end);
}

/** `/AGENT.md`, capped, or undefined when it is missing, empty or unreadable. */
export async function readAgentMd(vfs: VirtualFS, maxBytes = AGENT_MD_MAX_BYTES): Promise<string | undefined> {
  let text: string;
  try {
    text = await vfs.readFile(AGENT_MD_PATH);
  } catch {
    return undefined; // no file (or a directory of that name): nothing to send
  }
  return text.trim() ? capAgentMd(text, maxBytes) : undefined;
}

/** The server's limit for `context.views`: their texts together, in UTF-8 bytes, and how many. */
export const VIEW_CONTEXT_MAX_BYTES = 16 * 1024;
export const VIEW_CONTEXT_MAX = 8;

export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The newest views' contexts that fit the server's limits together. */
export function viewsToSend(kept: ReadonlyMap<string, string>): { rtc_id: string; text: string }[] {
  const out: { rtc_id: string; text: string }[] = [];
  let bytes = 0;
  for (const [rtc_id, text] of [...kept].reverse()) {
    if (out.length === VIEW_CONTEXT_MAX || (bytes += utf8Bytes(text)) > VIEW_CONTEXT_MAX_BYTES) break;
    out.unshift({ rtc_id, text });
  }
  return out;
}
