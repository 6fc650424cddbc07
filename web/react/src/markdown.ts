// <Markdown/>: an assistant's Markdown in a custom UI, rendered by the SDK's own
// renderer (@rtc-agent/web/markdown: DOM nodes from an allow-list, never HTML
// from the text), so a custom chat shows answers as the element does.

import { createElement, useLayoutEffect, useRef, type ReactElement } from "react";
import { renderMarkdown } from "@rtc-agent/web/markdown";

export interface MarkdownProps {
  /** The Markdown source (a message's `text`). */
  text: string;
  className?: string;
  /** Highlight code blocks (default true; false while the text still streams). */
  highlight?: boolean;
}

/** A `<div>` holding the rendered Markdown; it is rebuilt when the text changes. */
export function Markdown({ text, className, highlight = true }: MarkdownProps): ReactElement {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(renderMarkdown(text, { highlight }));
  }, [text, highlight]);
  return createElement("div", { ref, className });
}
