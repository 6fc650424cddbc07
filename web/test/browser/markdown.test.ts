// Unit tests of the safe Markdown renderer (src/ui/markdown.ts): structure, and
// that model output can never become HTML or a script URL.

import { renderMarkdown } from "../../src/ui/markdown.js";
import { eq, includes, ok, test } from "./harness.js";

function html(md: string): string {
  const div = document.createElement("div");
  div.append(renderMarkdown(md));
  return div.innerHTML;
}

test("markdown: headings, emphasis, code, lists, quotes, tables", () => {
  eq(html("# Title\n\nSome **bold**, *it*, `code` and ~~gone~~."), "<h1>Title</h1><p>Some <strong>bold</strong>, <em>it</em>, <code>code</code> and <del>gone</del>.</p>");
  eq(html("```js\nconst a = 1 < 2;\n```"), '<pre><code data-lang="js">const a = 1 &lt; 2;</code></pre>');
  eq(html("- a\n- b\n  - c\n1. one\n2. two"), "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><ol><li>one</li><li>two</li></ol>");
  eq(html("- [x] done\n- [ ] open"), '<ul><li class="task"><input type="checkbox" disabled="">done</li><li class="task"><input type="checkbox" disabled="">open</li></ul>');
  eq(html("> quoted\n> more"), "<blockquote><p>quoted\nmore</p></blockquote>");
  eq(html("| a | b |\n|---|---|\n| 1 | 2 |"), '<div class="table"><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></div>');
  eq(html("an unfinished ```\n```py\nprint(1)"), '<p>an unfinished ```</p><pre><code data-lang="py">print(1)</code></pre>', "a fence still streaming runs to the end");
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
