import { SearchClient } from "./client.js";
import { type FindRequest, type FindResult, type GrepRequest, type GrepResult } from "./engine.js";
export declare function runSearch(client: SearchClient | undefined, kind: "grep", req: GrepRequest): Promise<GrepResult>;
export declare function runSearch(client: SearchClient | undefined, kind: "find", req: FindRequest): Promise<FindResult>;
