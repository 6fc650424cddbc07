// Markdown (CommonMark + GFM tables and strikethrough, linkified URLs) parsed by
// markdown-it and turned into DOM nodes built here with createElement and text
// nodes only: no HTML string is ever parsed, so model output can never inject
// markup, attributes or scripts. Raw HTML is off (it stays text). Links are kept
// only for http(s) and mailto URLs without credentials (`user:password@host`
// stays text) and open in a new tab without referrer or opener; images are shown
// as links (no request leaves the page because a model wrote an image URL). Token
// types this file does not know are rendered as their text, never as elements.

import MarkdownIt, { type Env, type Token } from "markdown-it";
import { type CodeOptions, codeBlock } from "./code.js";

const SAFE_URL = /^(https?:|mailto:)/i;
// Credentials before the host (`https://user:password@host`, or a
// `https://trusted.example@evil.example` that reads as another host): such a
// link is shown as text, never followed.
const USERINFO = /^https?:[/\\]*[^/\\?#]*@/i;

/** Whether a link may be clickable: http(s) or mailto, without credentials. */
export function safeUrl(url: string): boolean {
  if (!SAFE_URL.test(url) || USERINFO.test(url)) return false;
  if (!/^https?:/i.test(url)) return true;
  try {
    const u = new URL(url);
    return u.username === "" && u.password === "";
  } catch {
    return false;
  }
}

const md = new MarkdownIt("default", { html: false, linkify: true, typographer: false });
// markdown-it keeps a link only when this accepts its (normalised) URL; anything
// else, e.g. `[x](javascript:…)`, `[c](/relative)` or a URL with credentials,
// stays as the text written (linkified URLs are checked here too).
md.validateLink = safeUrl;
// `www.example.com` becomes a link; a bare `example.com` does not (too many false hits).
md.linkify.set({ fuzzyLink: false });

/** The parsed top-level blocks of a Markdown text, with the line each starts at. */
export interface Parsed {
  tokens: Token[];
  /** Whether the text defines link references (they change links above them). */
  hasReferences: boolean;
}

export function parse(src: string): Parsed {
  const env: Env = {};
  const tokens = md.parse(src, env);
  return { tokens, hasReferences: !!env.references && Object.keys(env.references).length > 0 };
}

/** Renders Markdown into a fragment. */
export function renderMarkdown(src: string, doc: Document = document, opts: CodeOptions = {}): DocumentFragment {
  const frag = doc.createDocumentFragment();
  renderTokens(parse(src).tokens, frag, doc, opts);
  return frag;
}

/**
 * One top-level block: its tokens and the source line it starts at (relative to
 * the parsed text). Used to re-render only the blocks that changed.
 */
export interface Block {
  line: number;
  tokens: Token[];
}

/** Splits a token stream into its top-level blocks. */
export function topBlocks(tokens: Token[]): Block[] {
  const out: Block[] = [];
  let depth = 0;
  let cur: Block | null = null;
  for (const t of tokens) {
    if (depth === 0) {
      cur = { line: t.map?.[0] ?? out[out.length - 1]?.line ?? 0, tokens: [] };
      out.push(cur);
    }
    cur!.tokens.push(t);
    depth += t.nesting;
  }
  return out;
}

const BLOCK_TAGS: Record<string, string> = {
  paragraph_open: "p",
  blockquote_open: "blockquote",
  bullet_list_open: "ul",
  ordered_list_open: "ol",
  list_item_open: "li",
  thead_open: "thead",
  tbody_open: "tbody",
  tr_open: "tr",
  th_open: "th",
  td_open: "td",
};
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/** Appends the DOM of block tokens to `parent`. */
export function renderTokens(tokens: Token[], parent: Node, doc: Document = document, opts: CodeOptions = {}): void {
  new TokenRenderer(tokens, parent, doc, opts).run(Infinity);
}

/**
 * Appends the DOM of block tokens to `parent` in parts: each run() renders about
 * `budget` more tokens (those of a paragraph's text included), so one long block
 * can be built over several tasks into a detached parent. The same DOM as
 * renderTokens, which is one run of it.
 */
export class TokenRenderer {
  private i = 0;
  private readonly stack: Node[];
  /** Which opening tokens pushed an element, so closing tokens pop only those. */
  private readonly pushed: boolean[] = [];
  /** The text of the block being rendered (an `inline` token's children). */
  private inline: InlineRenderer | null = null;

  constructor(
    private readonly tokens: Token[],
    parent: Node,
    private readonly doc: Document = document,
    private readonly opts: CodeOptions = {},
  ) {
    this.stack = [parent];
  }

  /** Renders about `budget` more tokens; true when every token is rendered. */
  run(budget: number): boolean {
    const { tokens, doc, stack, pushed } = this;
    const top = () => stack[stack.length - 1]!;
    const open = (e: HTMLElement, into: HTMLElement = e) => {
      top().appendChild(e);
      stack.push(into);
      pushed.push(true);
    };
    while (budget > 0) {
      if (this.inline) {
        budget = this.inline.run(budget);
        if (!this.inline.done) return false;
        this.inline = null;
        continue;
      }
      if (this.i >= tokens.length) return true;
      const i = this.i++;
      const t = tokens[i]!;
      budget--;
      if (t.nesting === -1) {
        if (pushed.pop()) stack.pop();
        continue;
      }
      switch (t.type) {
        case "inline":
          this.inline = new InlineRenderer(t.children ?? [], top(), doc);
          break;
        case "fence":
        case "code_block":
          top().appendChild(codeBlock(t.content.replace(/\n$/, ""), t.type === "fence" ? (t.info.trim().split(/\s+/)[0] ?? "") : "", doc, this.opts));
          break;
        case "hr":
          top().appendChild(doc.createElement("hr"));
          break;
        case "heading_open":
          open(doc.createElement(HEADINGS.has(t.tag) ? t.tag : "p"));
          break;
        case "table_open": {
          const wrap = doc.createElement("div");
          wrap.className = "table";
          open(wrap, wrap.appendChild(doc.createElement("table")));
          break;
        }
        default: {
          const tag = BLOCK_TAGS[t.type];
          if (t.nesting === 1) {
            if (!tag || t.hidden) {
              pushed.push(false);
              break;
            }
            const e = doc.createElement(tag);
            if (tag === "ol") {
              const start = Number(attr(t, "start") || 1);
              if (Number.isSafeInteger(start) && start !== 1) e.setAttribute("start", String(start));
            }
            if (tag === "th" || tag === "td") {
              const align = /^text-align:(left|center|right)$/.exec(attr(t, "style"))?.[1];
              if (align) e.style.textAlign = align;
            }
            open(e);
            if (tag === "li") taskItem(tokens, i, e, doc);
          } else if (t.content) {
            top().appendChild(doc.createTextNode(t.content));
          }
        }
      }
    }
    return this.i >= tokens.length && !this.inline;
  }
}

/**
 * GFM task items (`- [x] done`): a disabled checkbox instead of the brackets.
 * markdown-it core has no task lists; the item's first text is checked here.
 */
function taskItem(tokens: Token[], i: number, li: HTMLElement, doc: Document): void {
  const first = tokens[i + 2]?.type === "inline" ? tokens[i + 2]!.children?.[0] : undefined;
  const m = first?.type === "text" ? /^\[([ xX])\]\s+/.exec(first.content) : null;
  if (!m || !first) return;
  first.content = first.content.slice(m[0].length);
  const box = doc.createElement("input");
  box.type = "checkbox";
  box.disabled = true;
  box.checked = m[1] !== " ";
  li.classList.add("task");
  li.appendChild(box);
}

const INLINE_TAGS: Record<string, string> = { strong_open: "strong", em_open: "em", s_open: "del" };

/** The text of one block (an `inline` token's children), rendered in parts like TokenRenderer. */
class InlineRenderer {
  private i = 0;
  private readonly stack: Node[];
  /** Which opening tokens pushed an element, so their closing tokens pop only those. */
  private readonly pushed: boolean[] = [];

  constructor(
    private readonly tokens: Token[],
    parent: Node,
    private readonly doc: Document,
  ) {
    this.stack = [parent];
  }

  get done(): boolean {
    return this.i >= this.tokens.length;
  }

  /** Renders up to `budget` tokens; returns the budget left. */
  run(budget: number): number {
    const { tokens, doc, stack, pushed } = this;
    const top = () => stack[stack.length - 1]!;
    for (; budget > 0 && this.i < tokens.length; budget--) {
      const i = this.i++;
      const t = tokens[i]!;
      if (t.nesting === -1) {
        if (pushed.pop()) stack.pop();
        continue;
      }
      switch (t.type) {
        case "text":
        case "text_special":
          top().appendChild(doc.createTextNode(t.content));
          break;
        case "softbreak":
          top().appendChild(doc.createTextNode("\n"));
          break;
        case "hardbreak":
          top().appendChild(doc.createElement("br"));
          break;
        case "code_inline":
          top().appendChild(doc.createElement("code")).textContent = t.content;
          break;
        case "image": {
          const src = attr(t, "src");
          const label = `[image: ${t.content || src}]`;
          top().appendChild(safeUrl(src) ? link(doc, src, label) : doc.createTextNode(label));
          break;
        }
        case "link_open": {
          const href = attr(t, "href");
          const ok = safeUrl(href) && !(t.markup === "linkify" && cutCredentials(tokens, i));
          pushed.push(ok);
          if (ok) stack.push(top().appendChild(link(doc, href, "")));
          break;
        }
        default: {
          const tag = INLINE_TAGS[t.type];
          if (t.nesting === 1) {
            pushed.push(!!tag);
            if (tag) stack.push(top().appendChild(doc.createElement(tag)));
          } else if (t.content) {
            // html_inline (never produced with html off) and anything unknown: as text.
            top().appendChild(doc.createTextNode(t.content));
          }
        }
      }
    }
    return budget;
  }
}

/**
 * Whether a linkified URL stops where credentials begin: in
 * `https://user:password@host` the linkifier takes `https://user` alone, which
 * would be a link to another host. The text right after the link tells.
 */
function cutCredentials(tokens: Token[], open: number): boolean {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    depth += (tokens[j] as Token).nesting;
    if (depth === 0) {
      const next = tokens[j + 1];
      return next?.type === "text" && /^(:[^\s/?#]*)?@/.test(next.content);
    }
  }
  return false;
}

function attr(t: Token, name: string): string {
  const v = t.attrGet(name);
  return v === null ? "" : String(v);
}

function link(doc: Document, href: string, text: string): HTMLAnchorElement {
  const a = doc.createElement("a");
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer nofollow";
  if (text) a.textContent = text;
  return a;
}
