export declare class MarkdownView {
    private readonly doc;
    private readonly spaced;
    readonly root: HTMLElement;
    private text;
    private shown;
    /** The text defines link references: always render the whole text. */
    private whole;
    private failed;
    private streaming;
    private pending;
    private timer;
    private nextAt;
    /**
     * `spaced`: space out costly renders while streaming (default). Off, every
     * set() renders at once (tests that check each step).
     */
    constructor(doc?: Document, spaced?: boolean);
    /** The text this view shows (or will show once a spaced-out render runs). */
    get current(): string;
    /**
     * Shows `text`. `streaming`: more text will follow, so the last block is not
     * highlighted yet and renders may be spaced out when they are costly.
     */
    set(raw: string, streaming: boolean): void;
    private flush;
    private render;
    private fallback;
}
