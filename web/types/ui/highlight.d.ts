/** The highlight.js language for a fence's info string, or null if none is bundled. */
export declare function languageOf(lang: string): string | null;
/**
 * Highlights `code` as `lang` and returns the nodes to put inside <code>, or null
 * when the language is not bundled (the code then stays plain text).
 */
export declare function highlight(code: string, lang: string, doc: Document): Promise<DocumentFragment | null>;
