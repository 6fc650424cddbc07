import type { FindRequest, FindResult, GrepResult } from "./engine.js";
/** A grep as the worker receives it: files by path and content key. */
export interface WorkerGrep {
    pattern: string;
    ignoreCase: boolean;
    files: {
        path: string;
        key: string;
    }[];
    maxMatches: number;
    maxLineChars: number;
}
export type SearchRequest = 
/** Contents for the worker to keep; a few MiB per message so no post blocks the page for long. */
{
    t: "put";
    files: {
        path: string;
        key: string;
        content: string;
    }[];
}
/** Contents the worker must forget. */
 | {
    t: "drop";
    paths: string[];
} | {
    t: "grep";
    id: number;
    req: WorkerGrep;
} | {
    t: "find";
    id: number;
    req: FindRequest;
};
export type SearchReply = 
/** Sent once the worker listens; request deadlines start after it. */
{
    t: "ready";
} | {
    t: "result";
    id: number;
    ok: true;
    value: GrepResult | FindResult;
}
/** `name` is "PatternError" or "GlobSyntaxError" for bad input, else an internal failure. */
 | {
    t: "result";
    id: number;
    ok: false;
    name: string;
    message: string;
};
