// The HTML of a MarkdownView without its pages (div.page wraps runs of blocks;
// see src/ui/mdview.ts), to compare with a one-shot render.
export function unpagedHtml(root: HTMLElement): string {
  const copy = root.cloneNode(true) as HTMLElement;
  for (const page of Array.from(copy.querySelectorAll(":scope > .page"))) page.replaceWith(...Array.from(page.childNodes));
  return copy.innerHTML;
}
