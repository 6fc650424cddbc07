// A code block as the chat shows it (Markdown fences, tool-call scripts): the
// code as text, a bar with its language and a Copy button, and syntax
// highlighting applied once highlight.js and the language have loaded (lazily,
// see highlight.ts). Until then, or for a language that is not bundled, the code
// stays plain text.

/** Code longer than this is not highlighted: it would cost more than it helps. */
const MAX_HIGHLIGHT = 60_000;

export interface CodeOptions {
  /** Highlight (default true). Off for a block still being streamed. */
  highlight?: boolean;
}

/** A code block with a copy button; highlighted later when `lang` is known. */
export function codeBlock(code: string, lang: string, doc: Document = document, opts: CodeOptions = {}): HTMLElement {
  const wrap = doc.createElement("div");
  wrap.className = "code";
  const bar = wrap.appendChild(doc.createElement("div"));
  bar.className = "code-bar";
  const label = bar.appendChild(doc.createElement("span"));
  label.className = "lang";
  label.textContent = lang;
  bar.appendChild(copyButton(() => code, "Copy", "Copy code", doc));
  const pre = wrap.appendChild(doc.createElement("pre"));
  const el = pre.appendChild(doc.createElement("code"));
  if (lang) el.dataset.lang = lang;
  el.textContent = code;
  if (lang && opts.highlight !== false && code.length <= MAX_HIGHLIGHT) {
    import("./highlight.js")
      .then((m) => m.highlight(code, lang, doc))
      .then(
        (frag) => {
          if (!frag) return;
          el.replaceChildren(frag);
          el.classList.add("hljs");
        },
        () => undefined, // not highlighted: the plain text stays
      );
  }
  return wrap;
}

/** A button that copies `text()` to the clipboard and says so for a moment. */
export function copyButton(text: () => string, caption: string, ariaLabel: string, doc: Document = document): HTMLButtonElement {
  const b = doc.createElement("button");
  b.type = "button";
  b.className = "ghost copy";
  b.textContent = caption;
  b.setAttribute("aria-label", ariaLabel);
  b.addEventListener("click", () => {
    void copyText(text(), b).then((ok) => {
      b.textContent = ok ? "Copied" : "Copy failed";
      setTimeout(() => (b.textContent = caption), 1500);
    });
  });
  return b;
}

/**
 * Copies text to the clipboard: the async Clipboard API where the page allows
 * it, else a hidden text field and the copy command (older browsers, frames
 * without the clipboard-write permission).
 */
export async function copyText(text: string, near: Node): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // fall back below
  }
  const doc = near.ownerDocument ?? document;
  const ta = doc.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.cssText = "position:fixed;top:0;left:0;opacity:0;pointer-events:none";
  const root = near.getRootNode();
  (root instanceof ShadowRoot ? root : doc.body).appendChild(ta);
  try {
    ta.select();
    return doc.execCommand("copy");
  } catch {
    return false;
  } finally {
    ta.remove();
  }
}
