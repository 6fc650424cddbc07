export type Child = Node | string | number | null | undefined | false | Child[];
export interface Props {
    class?: string;
    title?: string;
    /** Attributes set with setAttribute (aria-*, data-*, role, …). */
    attrs?: Record<string, string | number | boolean | undefined>;
    /** Event listeners. */
    on?: Partial<{
        [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void;
    }>;
    /** Properties assigned as is (value, type, disabled, checked, placeholder, …). */
    props?: Record<string, unknown>;
}
export declare function h<K extends keyof HTMLElementTagNameMap>(tag: K, p?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K];
export declare function append(parent: Node, children: Child[]): void;
/** Replaces all children of `parent`. */
export declare function replaceChildren(parent: Element, ...children: Child[]): void;
/** Short relative time ("3 min ago") for lists. */
export declare function ago(iso: string, now?: number): string;
