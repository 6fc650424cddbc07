export interface CodeOptions {
    /** Highlight (default true). Off for a block still being streamed. */
    highlight?: boolean;
}
/** A code block with a copy button; highlighted later when `lang` is known. */
export declare function codeBlock(code: string, lang: string, doc?: Document, opts?: CodeOptions): HTMLElement;
/** A button that copies `text()` to the clipboard and says so for a moment. */
export declare function copyButton(text: () => string, caption: string, ariaLabel: string, doc?: Document): HTMLButtonElement;
/**
 * Copies text to the clipboard: the async Clipboard API where the page allows
 * it, else a hidden text field and the copy command (older browsers, frames
 * without the clipboard-write permission).
 */
export declare function copyText(text: string, near: Node): Promise<boolean>;
