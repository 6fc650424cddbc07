// A small Markdown renderer that builds DOM nodes with createElement and text
// nodes only: model output can never inject HTML, attributes or scripts. Links
// are kept only for http(s) and mailto URLs; images are shown as links (no
// request leaves the page because a model wrote an image URL). It renders partial
// input sensibly, since it runs on every streaming delta.

const SAFE_URL = /^(https?:|mailto:)/i;

type El = HTMLElement;

function el(doc: Document, tag: string, parent: Node, cls?: string): El {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  parent.appendChild(e);
  return e;
}

/** Renders Markdown into a fragment. */
export function renderMarkdown(src: string, doc: Document = document): DocumentFragment {
  const frag = doc.createDocumentFragment();
  blocks(doc, src.replace(/\r\n?/g, "\n").split("\n"), frag);
  return frag;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const HR = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

function blocks(doc: Document, lines: string[], parent: Node): void {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const close = new RegExp(`^ {0,3}${fence[1]![0]}{${fence[1]!.length},}\\s*$`);
      const body: string[] = [];
      i++;
      while (i < lines.length && !close.test(lines[i]!)) body.push(lines[i++]!);
      i++; // the closing fence (absent while streaming: the code runs to the end)
      const pre = el(doc, "pre", parent);
      const code = el(doc, "code", pre);
      if (fence[2]) code.dataset.lang = fence[2];
      code.textContent = body.join("\n");
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      inline(doc, h[2]!, el(doc, `h${h[1]!.length}`, parent));
      i++;
      continue;
    }
    if (HR.test(line)) {
      el(doc, "hr", parent);
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) inner.push(QUOTE.exec(lines[i++]!)![1]!);
      blocks(doc, inner, el(doc, "blockquote", parent));
      continue;
    }
    if (LIST.test(line)) {
      i = list(doc, lines, i, parent);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!)) {
      i = table(doc, lines, i, parent);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "" && !startsBlock(lines, i)) para.push(lines[i++]!);
    if (para.length === 0) para.push(lines[i++]!);
    inline(doc, para.join("\n"), el(doc, "p", parent));
  }
}

function startsBlock(lines: string[], i: number): boolean {
  const l = lines[i]!;
  return FENCE.test(l) || HEADING.test(l) || HR.test(l) || QUOTE.test(l) || LIST.test(l);
}

function list(doc: Document, lines: string[], start: number, parent: Node): number {
  const first = LIST.exec(lines[start]!)!;
  const indent = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const ul = el(doc, ordered ? "ol" : "ul", parent);
  if (ordered && parseInt(first[2]!, 10) !== 1) ul.setAttribute("start", String(parseInt(first[2]!, 10)));
  let i = start;
  while (i < lines.length) {
    const m = LIST.exec(lines[i]!);
    if (!m || m[1]!.length !== indent || /\d/.test(m[2]!) !== ordered) break;
    const li = el(doc, "li", ul);
    const item: string[] = [m[3]!];
    const contentIndent = m[1]!.length + m[2]!.length + 1;
    i++;
    // Continuation lines and nested lists: lines indented deeper than the marker,
    // or plain (lazy) lines that start no other block.
    while (i < lines.length && lines[i]!.trim() !== "") {
      const l = lines[i]!;
      const lead = /^\s*/.exec(l)![0].length;
      if (lead <= indent && (LIST.test(l) || startsBlock(lines, i))) break;
      item.push(l.slice(Math.min(lead, contentIndent)));
      i++;
    }
    const task = /^\[([ xX])\]\s+/.exec(item[0]!);
    if (task) {
      const box = el(doc, "input", li) as HTMLInputElement;
      box.type = "checkbox";
      box.disabled = true;
      box.checked = task[1] !== " ";
      item[0] = item[0]!.slice(task[0].length);
      li.classList.add("task");
    }
    const nested = item.findIndex((l, k) => k > 0 && LIST.test(l));
    const text = nested < 0 ? item : item.slice(0, nested);
    inline(doc, text.join("\n"), li);
    if (nested >= 0) blocks(doc, item.slice(nested), li);
    while (i < lines.length && lines[i]!.trim() === "" && i + 1 < lines.length && LIST.exec(lines[i + 1]!)?.[1]!.length === indent) i++;
  }
  return i;
}

function cells(row: string): string[] {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function table(doc: Document, lines: string[], start: number, parent: Node): number {
  const wrap = el(doc, "div", parent, "table");
  const t = el(doc, "table", wrap);
  const head = el(doc, "tr", el(doc, "thead", t));
  for (const c of cells(lines[start]!)) inline(doc, c, el(doc, "th", head));
  const body = el(doc, "tbody", t);
  let i = start + 2;
  while (i < lines.length && lines[i]!.includes("|") && lines[i]!.trim() !== "") {
    const tr = el(doc, "tr", body);
    for (const c of cells(lines[i++]!)) inline(doc, c, el(doc, "td", tr));
  }
  return i;
}

const INLINE =
  /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|~~(?=\S)([\s\S]*?\S)~~|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![\w])_(?=[^\s_])([\s\S]*?[^\s_])_(?![\w])|(!?)\[([^\]\n]*)\]\(\s*([^()\s]+)(?:\s+"[^"]*")?\s*\)|<((?:https?:|mailto:)[^>\s]+)>|(https?:\/\/[^\s<>]*[^\s<>.,;:!?)\]'"*_])|\\([\\`*_{}[\]()#+\-.!|~>])|( {2,}|\\)\n/;

/** Renders inline Markdown (code, emphasis, links, line breaks) into `parent`. */
export function inline(doc: Document, text: string, parent: Node): void {
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      parent.appendChild(doc.createTextNode(rest));
      return;
    }
    if (m.index > 0) parent.appendChild(doc.createTextNode(rest.slice(0, m.index)));
    rest = rest.slice(m.index + m[0].length);
    if (m[1]) el(doc, "code", parent).textContent = m[2]!.replace(/^ (.*) $/, "$1");
    else if (m[3] !== undefined) inline(doc, m[3], el(doc, "strong", parent));
    else if (m[4] !== undefined) inline(doc, m[4], el(doc, "strong", parent));
    else if (m[5] !== undefined) inline(doc, m[5], el(doc, "del", parent));
    else if (m[6] !== undefined) inline(doc, m[6], el(doc, "em", parent));
    else if (m[7] !== undefined) inline(doc, m[7], el(doc, "em", parent));
    else if (m[9] !== undefined) link(doc, parent, m[10]!, m[9] || m[10]!, m[8] === "!");
    else if (m[11] !== undefined) link(doc, parent, m[11], m[11], false);
    else if (m[12] !== undefined) link(doc, parent, m[12], m[12], false);
    else if (m[13] !== undefined) parent.appendChild(doc.createTextNode(m[13]));
    else if (m[14] !== undefined) el(doc, "br", parent);
  }
}

function link(doc: Document, parent: Node, href: string, label: string, image: boolean): void {
  if (!SAFE_URL.test(href)) {
    parent.appendChild(doc.createTextNode(image ? `[image: ${label}]` : label));
    return;
  }
  const a = el(doc, "a", parent) as HTMLAnchorElement;
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer nofollow";
  if (image) a.textContent = `[image: ${label || href}]`;
  else inline(doc, label, a);
}
