// Property test of the Markdown renderer: thousands of generated texts (URLs in
// every form, e-mail addresses, emphasis, code, tables, lists, raw HTML and
// script URLs) render without an exception, into a DOM holding only allowed
// elements and attributes, with no link outside http(s)/mailto; the streaming
// view, fed the same texts piece by piece, ends with exactly the same DOM.
// The PRNG is seeded; a failure names the seed and the input. RTC_MD_SEED in the
// page URL (?seed=) replays a run.

import { highlight } from "../../src/ui/highlight.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { MarkdownView } from "../../src/ui/mdview.js";
import { AssertionError, eq, ok, test } from "./harness.js";
import { unpagedHtml } from "./mdhtml.js";

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTS = ["example.com", "sub.example.org", "例え.jp", "xn--r8jz45g.jp", "localhost:8080", "127.0.0.1", "münchen.de"];
const PATHS = ["", "/", "/a/b", "/wiki/Foo_(bar)", "/q?x=1&y=2", "/#frag", "/ünï/çødé", "/a_b_", "/*x*", "/path)", "/(a)(b)", "/a%20b", "/~user/"];
const TRAIL = ["", ".", ",", ")", "!", "?", ":", ";", "'", '"', "**", "_", "...", ">", "]"];
const SCHEMES = ["https://", "http://", "HTTPS://", "javascript:", "data:text/html,", "vbscript:", "file:///", "ftp://", "//", "mailto:"];
const WORDS = ["word", "naïve", "日本語", "emoji 🎉", "a_b", "x*y", "<b>", "&amp;", "&lt;script&gt;", "\\*", "`", "|", "~~", "[", "]", "(", ")", "<", ">", '"', "'", "🙂"];
const HTML = ['<img src=x onerror="alert(1)">', "<script>alert(1)</script>", '<a href="javascript:alert(1)">x</a>', "<iframe src=//e.example>", '<div style="x">', "<!-- c -->", "<svg onload=alert(1)>"];

function gen(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const url = () => `${pick(SCHEMES)}${pick(HOSTS)}${pick(PATHS)}`;
  const inline = (depth = 0): string => {
    switch (Math.floor(r() * 16)) {
      case 0: return url() + pick(TRAIL);
      case 1: return `<${url()}>`;
      case 2: { const u = url(); return `[${r() < 0.5 ? u : pick(WORDS)}](${u}${r() < 0.3 ? ' "title"' : ""})`; }
      case 3: return `![${pick(WORDS)}](${url()})`;
      case 4: return `${pick(["ops", "a.b+c", "ü"])}@${pick(HOSTS)}${pick(TRAIL)}`;
      case 5: return `<mailto:${pick(["x", "y.z"])}@${pick(HOSTS)}>`;
      case 6: return depth < 3 ? `**${inline(depth + 1)}**` : "**";
      case 7: return depth < 3 ? `*${inline(depth + 1)}*` : "_";
      case 8: return depth < 3 ? `~~${inline(depth + 1)}~~` : "~";
      case 9: return "`" + pick([url(), pick(WORDS), "a ` b"]) + "`";
      case 10: return pick(HTML);
      case 11: return "[".repeat(Math.floor(r() * 30)) + pick(WORDS) + "]".repeat(Math.floor(r() * 30));
      case 12: return `[ref${Math.floor(r() * 3)}]`;
      case 13: return "www." + pick(HOSTS) + pick(PATHS);
      default: return pick(WORDS);
    }
  };
  const line = () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => inline()).join(pick([" ", "", "  ", "\t"]));
  const block = (): string => {
    switch (Math.floor(r() * 12)) {
      case 0: return `${"#".repeat(1 + Math.floor(r() * 7))} ${line()}`;
      case 1: return Array.from({ length: 1 + Math.floor(r() * 4) }, () => `${pick(["-", "*", "+", "1.", "3)"])} ${pick(["", "[ ] ", "[x] "])}${line()}`).join("\n");
      case 2: return `| ${line()} | ${line()} |\n|${pick(["---", ":--", "--:", ":-:"])}|---|\n| ${line()} | ${line()} |`;
      case 3: return "```" + pick(["", "js", "ts", "python", "go", "nope", "<script>"]) + "\n" + line() + "\n" + (r() < 0.7 ? "```" : "");
      case 4: return `> ${line()}\n> ${block()}`;
      case 5: return `    ${line()}`;
      case 6: return pick(["---", "***", "___"]);
      case 7: return `[ref${Math.floor(r() * 3)}]: ${url()}${r() < 0.3 ? ' "t"' : ""}`;
      case 8: return `  - ${line()}\n    - ${line()}\n\n  continued ${line()}`;
      default: return line();
    }
  };
  return Array.from({ length: 1 + Math.floor(r() * 2) }, block).join(pick(["\n\n", "\n", "\r\n", "\n\n\n"]));
}

const ALLOWED: Record<string, readonly string[]> = {
  P: [], H1: [], H2: [], H3: [], H4: [], H5: [], H6: [], UL: [], OL: ["start"], LI: ["class"], BLOCKQUOTE: [],
  DIV: ["class"], TABLE: [], THEAD: [], TBODY: [], TR: [], TH: ["style"], TD: ["style"], PRE: ["class"],
  CODE: ["data-lang", "class"], SPAN: ["class"], BUTTON: ["type", "class", "aria-label"], INPUT: ["type", "disabled"],
  STRONG: [], EM: [], DEL: [], A: ["href", "target", "rel"], BR: [], HR: [],
};

/** Throws when `root` holds anything outside the allow-list. */
export function checkDom(root: Element): void {
  for (const el of Array.from(root.querySelectorAll("*"))) {
    const allowed = ALLOWED[el.tagName];
    if (!allowed) throw new AssertionError(`element <${el.tagName.toLowerCase()}> not allowed`);
    for (const a of Array.from(el.attributes)) {
      if (!allowed.includes(a.name)) throw new AssertionError(`attribute ${a.name} on <${el.tagName.toLowerCase()}> not allowed`);
    }
    if (el.tagName === "A") {
      const href = el.getAttribute("href") ?? "";
      if (!/^(https?:|mailto:)/i.test(href)) throw new AssertionError(`href ${JSON.stringify(href)} not allowed`);
      if (el.getAttribute("target") !== "_blank" || el.getAttribute("rel") !== "noopener noreferrer nofollow") throw new AssertionError("link without target/rel");
    }
    if (el.tagName === "INPUT" && el.getAttribute("type") !== "checkbox") throw new AssertionError("input that is not a checkbox");
    const style = el.getAttribute("style");
    if (style !== null && !/^text-align: (left|center|right);$/.test(style)) throw new AssertionError(`style ${JSON.stringify(style)} not allowed`);
  }
}

const seedParam = Number(new URLSearchParams(location.search).get("seed"));
const SEED = Number.isSafeInteger(seedParam) && seedParam > 0 ? seedParam : (Date.now() % 1_000_000) + 1;

test("markdown property: 10,000 generated texts render safely; streaming matches one-shot", () => {
  const r = prng(SEED);
  const div = document.createElement("div");
  let links = 0;
  for (let i = 0; i < 10_000; i++) {
    const md = gen(r);
    try {
      div.replaceChildren(renderMarkdown(md, document, { highlight: false }));
      checkDom(div);
      links += div.querySelectorAll("a").length;
      // Every 40th text is also streamed in random pieces into a MarkdownView.
      if (i % 40 === 0) {
        const v = new MarkdownView(document, false);
        for (let at = 0; at < md.length; ) {
          at = Math.min(md.length, at + 1 + Math.floor(r() * 16));
          v.set(md.slice(0, at), true);
        }
        v.set(md, false);
        const want = md.replace(/\r\n?/g, "\n");
        div.replaceChildren(renderMarkdown(want, document, { highlight: false }));
        const once = div.innerHTML;
        const streamed = unpagedHtml(v.root);
        if (streamed.replace(/ class="hljs"/g, "") !== once) throw new AssertionError(`streamed DOM differs:\n${streamed}\n--- one-shot ---\n${once}`);
      }
    } catch (err) {
      throw new AssertionError(`seed ${SEED}, text #${i} ${JSON.stringify(md)}: ${(err as Error).message}`);
    }
  }
  ok(links > 1000, `links were generated (${links})`);
  console.log(`markdown property: seed ${SEED}, ${links} links`);
});

test("markdown property: highlighted code holds only highlight.js spans", async () => {
  const r = prng(SEED + 1);
  const langs = ["js", "ts", "python", "go", "bash", "json", "html", "css", "sql", "yaml", "rust", "java", "cpp", "diff"];
  const pre = document.createElement("pre");
  let spans = 0;
  for (let i = 0; i < 300; i++) {
    const code = gen(r) + '\n</code></pre><script>alert(1)</script> "<img src=x onerror=alert(1)>"';
    const frag = await highlight(code, langs[i % langs.length]!, document);
    ok(frag !== null, "a bundled language");
    pre.replaceChildren(frag!);
    checkDom(pre);
    spans += pre.querySelectorAll("span").length;
    eq(pre.textContent, code.replace(/\r\n?/g, "\n"), `seed ${SEED}: highlighting keeps the text`);
  }
  ok(spans > 100, `tokens were highlighted (${spans})`);
});
