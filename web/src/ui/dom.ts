// A tiny hyperscript helper for the UI: elements, text and listeners only. No
// HTML strings are ever parsed, so nothing from the server or the model can
// become markup.

export type Child = Node | string | number | null | undefined | false | Child[];

export interface Props {
  class?: string;
  title?: string;
  /** Attributes set with setAttribute (aria-*, data-*, role, …). */
  attrs?: Record<string, string | number | boolean | undefined>;
  /** Event listeners. */
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void }>;
  /** Properties assigned as is (value, type, disabled, checked, placeholder, …). */
  props?: Record<string, unknown>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, p: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (p) {
    if (p.class) e.className = p.class;
    if (p.title) e.title = p.title;
    for (const [k, v] of Object.entries(p.attrs ?? {})) {
      if (v === undefined || v === false) continue;
      e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const [k, v] of Object.entries(p.on ?? {})) e.addEventListener(k, v as EventListener);
    for (const [k, v] of Object.entries(p.props ?? {})) (e as unknown as Record<string, unknown>)[k] = v;
  }
  append(e, children);
  return e;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.textContent = "";
  append(parent, children);
}

/** Short relative time ("3 min ago") for lists. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/**
 * Makes `wanted` the element children of `parent`, in order, moving a node only
 * where the order differs (so focus, selection and the state of untouched nodes
 * survive) and removing the others.
 */
export function arrange(parent: Element, wanted: readonly Element[]): void {
  const kids = parent.children;
  // The children are most often already the wanted ones (an update that
  // changed what they show): nothing to do, and nothing allocated.
  if (kids.length === wanted.length && wanted.every((w, i) => kids[i] === w)) return;
  // What goes is removed first, so what stays is not moved to make room (a
  // moved frame loads again, a moved form loses its focus).
  const keep = new Set<Element>(wanted);
  for (const k of [...kids]) if (!keep.has(k)) k.remove();
  for (let i = 0; i < wanted.length; i++) {
    const node = wanted[i]!;
    if (kids[i] !== node) parent.insertBefore(node, kids[i] ?? null);
  }
}
