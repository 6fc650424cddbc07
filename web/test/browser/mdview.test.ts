// The streaming Markdown view (src/ui/mdview.ts): appending keeps the blocks
// above the last one, the result equals a one-shot render, and a render that
// fails shows the raw text and does not stop later updates.

import { renderMarkdown } from "../../src/ui/markdown.js";
import { MarkdownView } from "../../src/ui/mdview.js";
import { STYLES } from "../../src/ui/styles.js";
import { longAnswer, longParagraph } from "../bench/content.js";
import { eq, includes, note, ok, test } from "./harness.js";
import { unpagedHtml as html } from "./mdhtml.js";

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
  eq(html(v.root), oneShot("# Title\n\nintro\n\nfirst paragraph\n\n- a\n- b\n- c\n\n```ts\nlet x"));
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
  eq(html(v.root), oneShot("- item\n####### more"));
});

test("mdview: a link reference defined later changes links above it", () => {
  const v = new MarkdownView(document, false);
  v.set("see [docs]\n\nmore text", true);
  eq(v.root.querySelectorAll("a").length, 0);
  v.set("see [docs]\n\nmore text\n\n[docs]: https://example.com/docs\n", false);
  eq(v.root.querySelector("a")?.getAttribute("href"), "https://example.com/docs");
  eq(html(v.root), oneShot("see [docs]\n\nmore text\n\n[docs]: https://example.com/docs\n"));
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
  eq(html(v.root), "<p>some <strong>bold</strong> text, and more</p>");
});

test("mdview: a long streamed answer is kept in pages; all but the last are settled", () => {
  const v = new MarkdownView(document, false);
  const paras = Array.from({ length: 40 }, (_, i) => `paragraph ${i} with *words*`);
  let text = "";
  for (const p of paras) {
    text += `${p}\n\n`;
    v.set(text, true);
  }
  const pages = Array.from(v.root.querySelectorAll(":scope > .page"));
  eq(pages.length, 3, "40 blocks in pages of 16");
  eq(pages.map((p) => p.classList.contains("settled")).join(), "true,true,false", "only the last page is not settled");
  eq(html(v.root), oneShot(text), "the pages hold exactly the one-shot render");
  // A line that grows from a heading (block 33, the first of a new page) into
  // the text of the paragraph above it (block 32): the new page empties again.
  const upTo32 = paras.slice(0, 31).map((p) => `${p}\n\n`).join("") + "paragraph 31\n#";
  v.set(upTo32, true);
  eq(v.root.querySelectorAll(":scope > .page").length, 3, "the heading opened a third page");
  v.set(upTo32 + "######", true);
  eq(html(v.root), oneShot(upTo32 + "######"));
  eq(v.root.querySelectorAll(":scope > .page").length, 2, "the emptied page is gone");
  ok(!v.root.lastElementChild!.classList.contains("settled"), "the last page is never settled");
  v.set(text.slice(0, text.indexOf("paragraph 20")), false);
  eq(html(v.root), oneShot(text.slice(0, text.indexOf("paragraph 20"))), "a text that is not an extension renders anew");
  ok(!v.root.lastElementChild!.classList.contains("settled"));
});

test("mdview: the end of a stream re-renders its last block only when it holds code", () => {
  const v = new MarkdownView(document, false);
  v.set("intro\n\nthe last paragraph", true);
  const last = v.root.querySelectorAll("p")[1];
  v.set("intro\n\nthe last paragraph", false);
  ok(v.root.querySelectorAll("p")[1] === last, "a paragraph is kept as it was");
  ok(!v.root.classList.contains("cursor"), "the cursor goes");
  v.set("intro\n\n```ts\nlet x = 1;\n```\n", true);
  const pre = v.root.querySelector("pre");
  v.set("intro\n\n```ts\nlet x = 1;\n```\n", false);
  ok(v.root.querySelector("pre") !== pre, "code is rendered again, now highlighted");
});

test("mdview: a long streaming paragraph is shown as raw text between full renders; the end renders it as one-shot", async () => {
  // Spaced out, as in the chat; a block is long above 2 KB here (16 KB in the chat).
  const v = new MarkdownView(document, true, 2048);
  document.body.append(v.root);
  try {
    const para = Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? `**a <b>x</b> [l](https://e.example/${i}) ` : `word${i} *em* `)).join("");
    const text = `# Title\n\nintro\n\n${para}\n- item\n\n\`\`\`js\nlet x = 1;\n\`\`\`\n\nafter **bold**`;
    ok(para.length > 2 * 2048, "the paragraph is longer than the raw-text threshold");
    // Each step waits for the render it caused, however long renders take here:
    // after a full render of a long block the next render comes before the next
    // full one is due, so it shows raw text.
    const step = Math.ceil(text.length / 30);
    let rendered: () => void = () => undefined;
    v.onRender = () => rendered();
    let sawPlain = false;
    let sawEscaped = false;
    let sawBelow = false;
    for (let i = step; i < text.length + step; i += step) {
      const upTo = text.slice(0, i);
      const done = new Promise<void>((r) => (rendered = r));
      v.set(upTo, true);
      if (v.root.textContent?.length === 0 || (v as unknown as { pending: unknown }).pending) await done;
      const plain = v.root.querySelector(".plain");
      if (plain) {
        sawPlain = true;
        eq(plain.children.length, 0, "raw text holds no element");
        if ((plain.textContent ?? "").includes("<b>x</b>")) sawEscaped = true;
        const block = plain.closest("p, li, pre, h1");
        if (block) ok(block.textContent!.length - plain.textContent!.length <= 2048, "raw text continues only a short block");
        const ps = Array.from(v.root.querySelectorAll("p")).filter((p) => !p.closest(".pending"));
        if (!block && (ps[ps.length - 1]?.textContent?.length ?? 0) > 2048) sawBelow = true;
      }
    }
    ok(sawPlain, "the long paragraph was shown with raw text at its end while it streamed");
    ok(sawBelow, "raw text after the long rendered paragraph went below it, not into it");
    ok(sawEscaped, "markup in the raw text stays text");
    v.set(text, false);
    eq(v.root.querySelectorAll(".plain").length, 0, "no raw text once the stream ended");
    eq(html(v.root), oneShot(text), "the final DOM is the one-shot render");
  } finally {
    v.root.remove();
  }
});

test("mdview: a block after a blank line is re-parsed alone; without one, with the block before", () => {
  const v = new MarkdownView(document, false);
  v.set("para one\n\nsecond", true);
  const first = v.root.querySelector("p");
  v.set("para one\n\nsecond grows", true);
  ok(v.root.querySelector("p") === first, "the paragraph above the blank line is kept");
  v.set("para one\n\nsecond grows\n===", true);
  eq(v.root.querySelector("h1")?.textContent, "second grows", "a setext underline turns the paragraph into a heading");
  v.set("para one\n\nsecond grows\n===\n- a\nlazy", false);
  eq(html(v.root), oneShot("para one\n\nsecond grows\n===\n- a\nlazy"));
});

/** The HTML of a render with code blocks as their text, highlighted or not (highlighting lands later, in its own time). */
function unhighlighted(root: HTMLElement): string {
  const copy = root.cloneNode(true) as HTMLElement;
  for (const code of Array.from(copy.querySelectorAll("code.hljs"))) {
    code.textContent = code.textContent;
    code.classList.remove("hljs");
    if (!code.classList.length) code.removeAttribute("class");
  }
  return html(copy);
}

/** A box in a shadow root with the element's styles (settled pages and raw chunks are skipped off screen there). */
function styledBox(): { box: HTMLElement; remove: () => void } {
  const host = document.createElement("div");
  const shadow = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = STYLES;
  const box = document.createElement("div");
  box.style.cssText = "width: 700px; height: 400px; overflow: auto";
  shadow.append(style, box);
  document.body.append(host);
  return { box, remove: () => host.remove() };
}

/** Longest task (ms) while `fn` runs and until `done` resolves, from the Long Tasks API (0 when none over 50 ms). */
async function longestTask(fn: () => Promise<void>): Promise<number> {
  let max = 0;
  const po = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) max = Math.max(max, e.duration);
  });
  po.observe({ type: "longtask" });
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    po.disconnect();
  }
  return max;
}

test("mdview: a 2 MB delta shows as text at once, is formatted in slices, and ends as the one-shot render", async () => {
  const v = new MarkdownView();
  const { box, remove } = styledBox();
  box.append(v.root);
  try {
    const text = longAnswer(2_000_000);
    let t = 0;
    let raw = 0;
    const longest = await longestTask(async () => {
      const t0 = performance.now();
      v.set(text, true);
      t = performance.now() - t0;
      raw = v.root.querySelector(".pending")?.textContent?.length ?? 0;
      ok(v.root.querySelector(".pending")?.textContent?.endsWith(text.slice(-300)), "the end of the text shows at once, as text");
      ok(raw > 1_000_000, `most of it is raw text after the first task: ${raw} characters`);
      eq(v.root.querySelectorAll(".pending > .plain:not(.settled)").length, 1, "only the last raw chunk is laid out off screen");
      await new Promise((r) => setTimeout(r, 100));
      ok(v.root.querySelector(".page h2"), "formatting goes on in the next tasks");
      // More text while the slices run: it shows at once, raw, after the rest.
      v.set(text + "\n\nand **more**", true);
      ok(v.root.querySelector(".pending")!.textContent!.endsWith("and **more**"), "a delta during the slices shows at once");
      await v.rendered();
    });
    note(`2 MB in one delta: set() ${t.toFixed(0)} ms (${raw} characters left raw), longest task until formatted ${longest.toFixed(0)} ms`);
    eq(v.root.querySelector(".pending"), null, "no raw text left");
    v.set(text + "\n\nand **more**", false);
    await v.rendered();
    eq(v.root.querySelectorAll(".plain").length, 0);
    const one = document.createElement("div");
    one.append(renderMarkdown(text + "\n\nand **more**"));
    const [a, b] = [unhighlighted(v.root), unhighlighted(one)];
    let d = 0;
    while (d < a.length && a[d] === b[d]) d++;
    ok(a === b, `the final DOM is the one-shot render (they differ from character ${d}: ${JSON.stringify(a.slice(d, d + 80))})`);
  } finally {
    remove();
  }
});

test("mdview: a long paragraph is raw from its first render while it streams; its final parse and DOM are separate tasks", async () => {
  const v = new MarkdownView();
  const { box, remove } = styledBox();
  box.append(v.root);
  try {
    const text = `# Notes\n\n${longParagraph(80_000)}`;
    v.set(text, true);
    eq(v.root.querySelector("h1")?.textContent, "Notes", "the blocks before it are formatted");
    eq(v.root.querySelectorAll("strong").length, 0, "the long paragraph is not parsed on its first render");
    ok((v.root.textContent ?? "").endsWith(text.slice(-200)), "it shows as text");
    const longest = await longestTask(async () => {
      v.set(text, false);
      ok(v.root.querySelector(".plain"), "the final parse's DOM is built in a later task");
      await v.rendered();
    });
    note(`80 KB paragraph: longest task of the final render ${longest.toFixed(0)} ms`);
    eq(v.root.querySelectorAll(".plain").length, 0);
    ok(html(v.root) === oneShot(text), "the final DOM is the one-shot render");
  } finally {
    remove();
  }
});

test("mdview: raw text is cut into chunks between characters, never inside a surrogate pair", async () => {
  const v = new MarkdownView();
  document.body.append(v.root);
  try {
    const text = `x${"😀".repeat(40_000)}`;
    v.set(text, true);
    const chunks = Array.from(v.root.querySelectorAll(".pending > .plain"), (c) => c.textContent ?? "");
    ok(chunks.length > 2, `in chunks: ${chunks.length}`);
    eq(chunks.join(""), text, "the chunks hold the text");
    ok(chunks.every((c) => !/^[\uDC00-\uDFFF]/.test(c) && !/[\uD800-\uDBFF]$/.test(c)), "no chunk starts or ends inside a pair");
    v.set(text, false);
    await v.rendered();
    eq(html(v.root), oneShot(text));
  } finally {
    v.root.remove();
  }
});
