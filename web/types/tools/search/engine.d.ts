/** A pattern RE2 does not accept; the message is written for the model. */
export declare class PatternError extends Error {
    readonly name = "PatternError";
}
export interface GrepRequest {
    pattern: string;
    ignoreCase: boolean;
    /** Files in output order; `key` (version and mtime) identifies the content. */
    files: {
        path: string;
        key?: string;
        content: string;
    }[];
    maxMatches: number;
    maxLineChars: number;
}
export interface GrepResult {
    /** `path:line: text`, each text already cut to maxLineChars. */
    lines: string[];
    /** True when more lines matched than maxMatches. */
    capped: boolean;
}
export interface FindRequest {
    glob: string;
    /** The strings the glob is matched against (names or paths). */
    subjects: string[];
}
export interface FindResult {
    /** Indexes into `subjects` that matched, ascending. */
    matches: number[];
}
/** Throws PatternError when `pattern` is not valid RE2 syntax. */
export declare function checkGrepPattern(pattern: string): void;
export declare function grepFiles(req: GrepRequest): GrepResult;
export declare function findMatches(req: FindRequest): FindResult;
export declare function clip(s: string, max: number): string;
