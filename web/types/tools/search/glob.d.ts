/** Bad glob syntax; the message is written for the model. */
export declare class GlobSyntaxError extends Error {
    readonly name = "GlobSyntaxError";
}
/** Compiles a glob into an anchored RE2 pattern matched against a whole path string. */
export declare function globToPattern(glob: string): string;
