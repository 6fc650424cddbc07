import { type Token } from "markdown-it";
import { type CodeOptions } from "./code.js";
/** The parsed top-level blocks of a Markdown text, with the line each starts at. */
export interface Parsed {
    tokens: Token[];
    /** Whether the text defines link references (they change links above them). */
    hasReferences: boolean;
}
export declare function parse(src: string): Parsed;
/** Renders Markdown into a fragment. */
export declare function renderMarkdown(src: string, doc?: Document, opts?: CodeOptions): DocumentFragment;
/**
 * One top-level block: its tokens and the source line it starts at (relative to
 * the parsed text). Used to re-render only the blocks that changed.
 */
export interface Block {
    line: number;
    tokens: Token[];
}
/** Splits a token stream into its top-level blocks. */
export declare function topBlocks(tokens: Token[]): Block[];
/** Appends the DOM of block tokens to `parent`. */
export declare function renderTokens(tokens: Token[], parent: Node, doc?: Document, opts?: CodeOptions): void;
