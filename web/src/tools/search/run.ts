import { ArgumentError, ToolFailure } from "../args.js";
import { SearchClient, SearchFailure, SearchTimeoutError } from "./client.js";
import type { FindRequest, FindResult, GrepRequest, GrepResult } from "./engine.js";
import { GlobSyntaxError } from "./glob.js";
import { searchInPage } from "./in-page.js";

export function runSearch(client: SearchClient | undefined, kind: "grep", req: GrepRequest): Promise<GrepResult>;
export function runSearch(client: SearchClient | undefined, kind: "find", req: FindRequest): Promise<FindResult>;
/**
 * Runs a grep or find through the search worker when the context has one, else in
 * the page; maps the engine's failures to what the tool reports to the model.
 */
export async function runSearch(
  client: SearchClient | undefined,
  kind: "grep" | "find",
  req: GrepRequest | FindRequest,
): Promise<GrepResult | FindResult> {
  try {
    if (!client) return await searchInPage(kind, req);
    return await (kind === "grep" ? client.grep(req as GrepRequest) : client.find(req as FindRequest));
  } catch (err) {
    // The engine is loaded on first use: its PatternError is known by name.
    if ((err instanceof Error && err.name === "PatternError") || err instanceof GlobSyntaxError) throw new ArgumentError(err.message);
    if (err instanceof SearchFailure && (err.name === "PatternError" || err.name === "GlobSyntaxError")) throw new ArgumentError(err.message);
    if (err instanceof SearchTimeoutError) throw new ToolFailure(err.message);
    throw err;
  }
}
