// The Markdown entry (`@rtc-agent/web/markdown`, dist/rtc-agent-markdown.js): the
// renderer the chat uses, for a custom UI. It builds DOM nodes from the text with
// markdown-it and an allow-list of elements and attributes (no HTML from the
// text, only http/https/mailto links opened with noopener, images as links), so
// a model's answer cannot inject markup, scripts or requests. Code blocks get a
// Copy button and are highlighted by highlight.js, loaded on first use.

import { renderMarkdown as render } from "./ui/markdown.js";

/**
 * Renders Markdown (an assistant's answer) into a fragment of DOM nodes for
 * `element.replaceChildren(...)`. `highlight: false` skips highlighting code
 * (for text still streaming).
 */
export function renderMarkdown(text: string, options: { highlight?: boolean; document?: Document } = {}): DocumentFragment {
  return render(text, options.document ?? document, { highlight: options.highlight ?? true });
}
