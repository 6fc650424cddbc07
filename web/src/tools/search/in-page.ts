// grep and find in the page itself, for when no search frame can run (the page's
// CSP blocks it) or no search client is given. The engine and RE2 (re2js, about
// 150 KB) are loaded on first use, so a page whose searches run in the frame's
// worker never loads them.

import type { FindRequest, FindResult, GrepRequest, GrepResult } from "./engine.js";

export function searchInPage(kind: "grep", req: GrepRequest): Promise<GrepResult>;
export function searchInPage(kind: "find", req: FindRequest): Promise<FindResult>;
export function searchInPage(kind: "grep" | "find", req: GrepRequest | FindRequest): Promise<GrepResult | FindResult>;
export async function searchInPage(kind: "grep" | "find", req: GrepRequest | FindRequest): Promise<GrepResult | FindResult> {
  const engine = await import("./engine.js");
  return kind === "grep" ? engine.grepFiles(req as GrepRequest) : engine.findMatches(req as FindRequest);
}
