// A long list that renders only the rows in view (and a margin above and below):
// the list element scrolls, a sizer child gives it the height of every row, and
// each rendered row is placed at its index (class `virtual` on the list: rows are
// absolutely positioned, styles.ts). Rows have one height, measured from the
// first row rendered. Rows keep their DOM order (Tab order follows it), are
// reused by key when the items change, and the row that has focus is never
// removed while its item is still listed, so keyboard use survives scrolling
// and refreshes.

import { arrange } from "./dom.js";

export interface VirtualRowsOptions<T> {
  /** The scrolling list; the rows become its children. */
  list: HTMLElement;
  /** A new row for an item. */
  render: (item: T, index: number) => HTMLElement;
  /** The row of an item with an unchanged key is reused (and keeps its state). */
  key: (item: T) => string;
  /** Rows rendered above and below the visible ones. Default 20. */
  margin?: number;
  /** Row height in px until a row is measured. Default 22. */
  rowHeight?: number;
}

interface Row {
  el: HTMLElement;
  index: number;
}

/** Rows rendered while the list has no height yet (hidden): a screenful. */
const UNSIZED_ROWS = 40;

export class VirtualRows<T> {
  private items: readonly T[] = [];
  private keys: string[] = [];
  private indexOfKey = new Map<string, number>();
  private rows = new Map<string, Row>();
  private readonly sizer: HTMLElement;
  private placeholder: HTMLElement | null = null;
  private rowHeight: number;
  private measured = false;
  private readonly margin: number;
  private frame: number | null = null;
  private readonly resize: ResizeObserver | null = null;

  constructor(private readonly o: VirtualRowsOptions<T>) {
    this.margin = o.margin ?? 20;
    this.rowHeight = o.rowHeight ?? 22;
    const doc = o.list.ownerDocument;
    this.sizer = doc.createElement(o.list.tagName === "UL" || o.list.tagName === "OL" ? "li" : "div");
    this.sizer.className = "sizer";
    this.sizer.setAttribute("role", "none");
    this.sizer.setAttribute("aria-hidden", "true");
    o.list.classList.add("virtual");
    o.list.addEventListener("scroll", () => this.schedule(), { passive: true });
    if (typeof ResizeObserver === "function") {
      this.resize = new ResizeObserver(() => this.schedule());
      this.resize.observe(o.list);
    }
  }

  /** How many items the list holds (rendered or not). */
  get size(): number {
    return this.items.length;
  }

  /** The rows rendered now, in order. */
  rendered(): HTMLElement[] {
    return [...this.rows.values()].sort((a, b) => a.index - b.index).map((r) => r.el);
  }

  /** The index of a rendered row's item, or -1. */
  indexOf(el: Element): number {
    for (const r of this.rows.values()) if (r.el === el) return r.index;
    return -1;
  }

  /**
   * Shows `items` (rendering the rows in view now); `placeholder` is shown
   * instead when there are none.
   */
  setItems(items: readonly T[], placeholder: HTMLElement | null = null): void {
    this.items = items;
    this.keys = items.map((it) => this.o.key(it));
    this.indexOfKey = new Map(this.keys.map((k, i) => [k, i]));
    this.placeholder = placeholder;
    this.render();
  }

  /** Renders the row of item `i`, scrolled into view, and returns it. */
  reveal(i: number): HTMLElement | null {
    if (i < 0 || i >= this.items.length) return null;
    const list = this.o.list;
    const top = i * this.rowHeight;
    const view = list.clientHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + this.rowHeight > list.scrollTop + view) list.scrollTop = top + this.rowHeight - view;
    this.render();
    return this.rows.get(this.keys[i]!)?.el ?? null;
  }

  /** Renders the rows in view now (scrolling renders by itself, once a frame). */
  render(): void {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    const list = this.o.list;
    const n = this.items.length;
    if (n === 0) {
      for (const r of this.rows.values()) r.el.remove();
      this.rows.clear();
      arrange(list, this.placeholder ? [this.placeholder] : []);
      return;
    }
    const h = this.rowHeight;
    const view = list.clientHeight;
    const from = Math.max(0, Math.floor(list.scrollTop / h) - this.margin);
    const to = Math.min(n, (view > 0 ? Math.ceil((list.scrollTop + view) / h) : from + UNSIZED_ROWS) + this.margin);
    const focused = this.focusedKey();
    const next = new Map<string, Row>();
    for (let i = from; i < to; i++) next.set(this.keys[i]!, { el: this.rows.get(this.keys[i]!)?.el ?? this.o.render(this.items[i]!, i), index: i });
    // The focused row stays while its item is listed, wherever it is.
    if (focused !== null && !next.has(focused)) {
      const i = this.indexOfKey.get(focused);
      if (i !== undefined) next.set(focused, { el: this.rows.get(focused)!.el, index: i });
    }
    for (const [k, r] of this.rows) if (!next.has(k)) r.el.remove();
    this.rows = next;
    const ordered = [...next.values()].sort((a, b) => a.index - b.index);
    for (const r of ordered) {
      const top = `${r.index * h}px`;
      if (r.el.style.top !== top) r.el.style.top = top;
      r.el.setAttribute("aria-posinset", String(r.index + 1));
      r.el.setAttribute("aria-setsize", String(n));
    }
    this.sizer.style.height = `${n * h}px`;
    arrange(list, [this.sizer, ...ordered.map((r) => r.el)]);
    // The first rows on screen tell the real height of a row.
    if (!this.measured && view > 0 && ordered.length > 0) {
      const real = ordered[0]!.el.getBoundingClientRect().height;
      if (real > 0) {
        this.measured = true;
        if (Math.abs(real - h) > 0.01) {
          this.rowHeight = real;
          this.render();
        }
      }
    }
  }

  dispose(): void {
    this.resize?.disconnect();
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
  }

  private schedule(): void {
    if (this.frame !== null || this.items.length === 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.render();
    });
  }

  /** The key of the rendered row that has focus (or holds it), if any. */
  private focusedKey(): string | null {
    const root = this.o.list.getRootNode() as Document | ShadowRoot;
    const active = root.activeElement;
    if (!active || !this.o.list.contains(active)) return null;
    for (const [k, r] of this.rows) if (r.el.contains(active)) return k;
    return null;
  }
}
