// The streaming Markdown view (src/ui/mdview.ts): appending keeps the blocks
// above the last one, the result equals a one-shot render, and a render that
// fails shows the raw text and does not stop later updates.

import { renderMarkdown } from "../../src/ui/markdown.js";
import { MarkdownView } from "../../src/ui/mdview.js";
import { eq, includes, ok, test } from "./harness.js";

function oneShot(md: string): string {
  const div = document.createElement("div");
  div.append(renderMarkdown(md));
  return div.innerHTML;
}

test("mdview: appended text re-renders only the last blocks", () => {
  const v = new MarkdownView(document, false);
  v.set("# Title\n\nintro\n\nfirst para", true);
  const h1 = v.root.querySelector("h1");
  v.set("# Title\n\nintro\n\nfirst paragraph\n\n- a\n- b", true);
  ok(v.root.querySelector("h1") === h1, "the heading node is kept");
  const p = v.root.querySelector("p");
  v.set("# Title\n\nintro\n\nfirst paragraph\n\n- a\n- b\n- c\n\n```ts\nlet x", true);
  ok(v.root.querySelector("p") === p, "a completed paragraph is kept");
  eq(v.root.innerHTML, oneShot("# Title\n\nintro\n\nfirst paragraph\n\n- a\n- b\n- c\n\n```ts\nlet x"));
  ok(v.root.classList.contains("cursor"), "streaming shows the cursor");
  v.set("# Title\n\nintro\n\nfirst paragraph\n\n- a\n- b\n- c\n\n```ts\nlet x = 1;\n```\n", false);
  ok(!v.root.classList.contains("cursor"));
  eq(v.root.querySelectorAll("pre").length, 1);
});

test("mdview: a line that grows from a heading into text joins the list above", () => {
  const v = new MarkdownView(document, false);
  v.set("- item\n#", true);
  eq(v.root.querySelectorAll("h1").length, 1);
  v.set("- item\n####### more", false);
  eq(v.root.innerHTML, oneShot("- item\n####### more"));
});

test("mdview: a link reference defined later changes links above it", () => {
  const v = new MarkdownView(document, false);
  v.set("see [docs]\n\nmore text", true);
  eq(v.root.querySelectorAll("a").length, 0);
  v.set("see [docs]\n\nmore text\n\n[docs]: https://example.com/docs\n", false);
  eq(v.root.querySelector("a")?.getAttribute("href"), "https://example.com/docs");
  eq(v.root.innerHTML, oneShot("see [docs]\n\nmore text\n\n[docs]: https://example.com/docs\n"));
});

test("mdview: a failing render shows the raw text and later updates still render", () => {
  const doc = document.implementation.createHTMLDocument("t");
  const create = doc.createElement.bind(doc);
  let broken = true;
  doc.createElement = ((tag: string) => {
    if (broken && tag === "strong") throw new Error("boom");
    return create(tag);
  }) as typeof doc.createElement;
  const v = new MarkdownView(doc, false);
  v.set("some **bold** text", false);
  includes(v.root.textContent ?? "", "some **bold** text", "raw text shown");
  includes(v.root.querySelector(".note")?.textContent ?? "", "could not be formatted");
  broken = false;
  v.set("some **bold** text, and more", false);
  eq(v.root.innerHTML, "<p>some <strong>bold</strong> text, and more</p>");
});
