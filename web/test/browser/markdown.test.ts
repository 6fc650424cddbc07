// Unit tests of the safe Markdown renderer (src/ui/markdown.ts): structure, and
// that model output can never become HTML or a script URL.

import { renderMarkdown } from "../../src/ui/markdown.js";
import { renderMarkdown as publicRender } from "../../src/markdown-entry.js";
import { eq, includes, ok, test } from "./harness.js";

function bar(lang: string): string {
  return `<div class="code-bar"><span class="lang">${lang}</span><button type="button" class="ghost copy" aria-label="Copy code">Copy</button></div>`;
}

function html(md: string): string {
  const div = document.createElement("div");
  div.append(renderMarkdown(md));
  return div.innerHTML;
}

test("markdown: headings, emphasis, code, lists, quotes, tables", () => {
  eq(html("# Title\n\nSome **bold**, *it*, `code` and ~~gone~~."), "<h1>Title</h1><p>Some <strong>bold</strong>, <em>it</em>, <code>code</code> and <del>gone</del>.</p>");
  eq(html("```js\nconst a = 1 < 2;\n```"), `<div class="code">${bar("js")}<pre><code data-lang="js">const a = 1 &lt; 2;</code></pre></div>`);
  eq(html("- a\n- b\n  - c\n1. one\n2. two"), "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><ol><li>one</li><li>two</li></ol>");
  eq(html("- [x] done\n- [ ] open"), '<ul><li class="task"><input type="checkbox" disabled="">done</li><li class="task"><input type="checkbox" disabled="">open</li></ul>');
  eq(html("> quoted\n> more"), "<blockquote><p>quoted\nmore</p></blockquote>");
  eq(html("| a | b |\n|---|---|\n| 1 | 2 |"), '<div class="table"><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></div>');
  eq(html("an unfinished ```\n```py\nprint(1)"), `<p>an unfinished \`\`\`</p><div class="code">${bar("py")}<pre><code data-lang="py">print(1)</code></pre></div>`, "a fence still streaming runs to the end");
});

test("markdown: raw HTML stays text; only http(s) and mailto links; no images loaded", () => {
  const out = html('<img src=x onerror="alert(1)"> <script>alert(2)</script> [x](javascript:alert(3)) ![p](https://e.example/p.png) [ok](https://e.example/a?b=1)');
  ok(!out.includes("<img") && !out.includes("<script"), out);
  includes(out, "&lt;img src=x onerror=\"alert(1)\"&gt;");
  ok(!/href="javascript/i.test(out), "no javascript: URL");
  ok(!/href=/.test(html("[a](javascript:void%200) [b](data:text/html,x) [c](/relative)")), "only absolute http(s)/mailto links");
  includes(out, '<a href="https://e.example/p.png" target="_blank" rel="noopener noreferrer nofollow">[image: p]</a>');
  includes(out, '<a href="https://e.example/a?b=1" target="_blank" rel="noopener noreferrer nofollow">ok</a>');
  const frag = renderMarkdown("**<b onclick=x>**");
  const div = document.createElement("div");
  div.append(frag);
  eq(div.querySelectorAll("[onclick]").length, 0);
});

test("markdown: links with credentials (user:password@host) are text, not clickable", () => {
  const links = [
    "[docs](https://user:password@example.com/docs)",
    "https://user:password@example.com/a",
    "<https://admin:hunter2@example.com>",
    "[bank](https://bank.example@evil.example/login)",
    "[x](https:user:pw@example.com/)",
    "![p](https://u:p@example.com/p.png)",
  ];
  for (const md of links) {
    const out = html(md);
    ok(!/<a\b/.test(out), `${md} is not a link: ${out}`);
    includes(out, md.includes("bank") ? "bank.example@evil.example" : "@example.com", "the URL stays visible as text");
  }
  includes(html("mail me: mailto:someone@example.com"), '<a href="mailto:someone@example.com"', "a mailto address is still a link");
  includes(html("[ok](https://example.com/@user)"), '<a href="https://example.com/@user"', "an @ in the path is no credential");
});

test("markdown: URLs in every form become safe links (no stack overflow)", () => {
  const A = 'target="_blank" rel="noopener noreferrer nofollow"';
  eq(html("see https://example.com"), `<p>see <a href="https://example.com" ${A}>https://example.com</a></p>`);
  eq(html("<https://example.com>"), `<p><a href="https://example.com" ${A}>https://example.com</a></p>`);
  eq(html("[https://x.example](https://x.example)"), `<p><a href="https://x.example" ${A}>https://x.example</a></p>`);
  eq(html("see https://en.wikipedia.org/wiki/Foo_(bar)."), `<p>see <a href="https://en.wikipedia.org/wiki/Foo_(bar)" ${A}>https://en.wikipedia.org/wiki/Foo_(bar)</a>.</p>`, "parentheses kept, trailing dot left out");
  eq(html("[wiki](https://en.wikipedia.org/wiki/Foo_(bar))"), `<p><a href="https://en.wikipedia.org/wiki/Foo_(bar)" ${A}>wiki</a></p>`);
  eq(html("mail ops@example.com or <mailto:a@b.example>"), `<p>mail <a href="mailto:ops@example.com" ${A}>ops@example.com</a> or <a href="mailto:a@b.example" ${A}>mailto:a@b.example</a></p>`);
  eq(html("(see https://example.com/a?b=1&c=2), ok"), `<p>(see <a href="https://example.com/a?b=1&amp;c=2" ${A}>https://example.com/a?b=1&amp;c=2</a>), ok</p>`);
  includes(html("https://例え.jp/パス"), 'href="https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9"', "Unicode host and path are encoded");
  eq(html("**https://example.com**"), `<p><strong><a href="https://example.com" ${A}>https://example.com</a></strong></p>`);
  eq(html("<javascript:alert(1)> [x](vbscript:y) <file:///etc/passwd>"), "<p>&lt;javascript:alert(1)&gt; [x](vbscript:y) &lt;file:///etc/passwd&gt;</p>");
  const deep = html("[".repeat(10_000) + "a" + "]".repeat(10_000));
  ok(deep.length > 20_000, "10,000 nested brackets render as text");
  const url = "https://example.com/" + "a".repeat(10_000);
  const out = html(url);
  ok(out.startsWith('<p><a href="https://example.com/aaaa') && out.length > 10_000, "a 10,000-character URL renders as a link");
});

test("markdown: the public renderMarkdown (@rtc-agent/web/markdown) renders with the same allow-list", () => {
  const div = document.createElement("div");
  div.append(publicRender("**bold** <img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://e.example)\n\n```js\nlet a = 1;\n```", { highlight: false }));
  eq(div.querySelector("strong")?.textContent, "bold");
  eq(div.querySelectorAll("img, script").length, 0, "no element from the text's HTML");
  eq(Array.from(div.querySelectorAll("a"), (a) => a.getAttribute("href")), ["https://e.example"], "only the http(s) link is a link");
  eq(div.querySelector("pre code")?.textContent, "let a = 1;");
  eq(div.querySelectorAll(".hljs").length, 0, "highlight: false leaves code plain");
});
