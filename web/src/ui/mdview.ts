// The Markdown body of one message, kept current as its text grows. While text
// is appended (streaming), only the last block is parsed and rebuilt (the last
// two when no blank line separates them: appending to a line can turn the block
// it started into a lazy continuation of the one before). The blocks above cannot
// change by appending, except through a link reference definition, which makes
// the view re-render everything. So a render costs what the growing block costs.
//
// A render that throws shows the raw text with a notice instead; the next
// update tries again. Renders are spaced out so that, with the layout they
// cause (measured: the view forces it while streaming), they take about a tenth
// of the main thread; the latest text is always shown in the end.
//
// A growing block too long to parse on every render (more than PLAIN_BYTES of
// source to re-parse, e.g. one huge paragraph) is parsed at a lower rate while
// it streams: between two full renders the text that arrived is appended as it
// was written (escaped, white-space kept) at the end of the block's last
// element. The end of the stream renders it fully, so the final DOM is the one a
// one-shot render gives.
//
// Blocks are kept in pages of up to PAGE_BLOCKS blocks. Every page but the last
// is "settled" (class `settled`, which the styles give `content-visibility:
// auto`): the browser skips the layout and paint of settled pages off screen,
// so a frame of a long streaming answer costs about what is in view. The last
// page, which holds the growing block, is never settled.

import { type Block, parse, renderTokens, topBlocks } from "./markdown.js";

interface Shown {
  /** Source offsets where the block starts and where its last line ends. */
  start: number;
  end: number;
  nodes: Node[];
  /** The page holding the block's nodes. */
  page: Page | null;
}

interface Page {
  el: HTMLElement;
  blocks: number;
}

/** Blocks per page: pages above the last are skipped by layout while off screen. */
const PAGE_BLOCKS = 16;

/** How much of the main thread a growing message may take while streaming. */
const DUTY = 0.1;
/**
 * At most this often while streaming: every second animation frame. Each render
 * also costs the browser a layout and a paint; 30 updates a second read as smooth.
 */
const MIN_GAP_MS = 32;
/** Source to re-parse above which a streaming block is parsed at a lower rate. */
const PLAIN_BYTES = 16 * 1024;
/** How much of the main thread the full renders of such a block may take. */
const FULL_DUTY = 0.05;
/** At most this often, such a block is rendered fully while it streams. */
const FULL_MIN_GAP_MS = 250;
/** Block elements the raw text of a long streaming block is appended into the last of. */
const INTO = new Set(["P", "LI", "UL", "OL", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR", "TD", "TH", "DIV", "PRE", "CODE", "H1", "H2", "H3", "H4", "H5", "H6"]);

export class MarkdownView {
  readonly root: HTMLElement;
  private text = "";
  private shown: Shown[] = [];
  private pages: Page[] = [];
  /** The text defines link references: always render the whole text. */
  private whole = false;
  private failed = false;
  /** The last block holds code, which is highlighted only once the text is complete. */
  private lastHasCode = false;
  private streaming = false;
  private pending: { text: string; streaming: boolean } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private nextAt = 0;
  /** The raw text appended since the last full render of a long streaming block. */
  private plain: Text | null = null;
  /** Not before this time is a long streaming block rendered fully again. */
  private fullAt = 0;
  private fullTimer: ReturnType<typeof setTimeout> | null = null;
  /** Called after each render (e.g. to keep a log scrolled to its end). */
  onRender: (() => void) | null = null;

  /**
   * `spaced`: space out costly renders while streaming (default). Off, every
   * set() renders at once (tests that check each step). `plainBytes`: how much
   * source to re-parse makes a streaming block one that is parsed at a lower rate.
   */
  constructor(
    private readonly doc: Document = document,
    private readonly spaced = true,
    private readonly plainBytes = PLAIN_BYTES,
  ) {
    this.root = doc.createElement("div");
    this.root.className = "md";
  }

  /** The text this view shows (or will show once a spaced-out render runs). */
  get current(): string {
    return this.pending?.text ?? this.text;
  }

  /**
   * Shows `text`. `streaming`: more text will follow, so the last block is not
   * highlighted yet and renders may be spaced out when they are costly.
   */
  set(raw: string, streaming: boolean): void {
    // markdown-it reads \r and \r\n as \n: so must the block offsets below.
    const text = raw.includes("\r") ? raw.replace(/\r\n?/g, "\n") : raw;
    // Same text, same state. A stream that ended re-renders its last block once,
    // now highlighted, when it holds code (else it is already as it stays).
    const same = text === this.text && !this.pending && !this.failed && !this.plain;
    if (same && (streaming === this.streaming || (!streaming && !this.lastHasCode))) {
      this.streaming = streaming;
      this.root.classList.toggle("cursor", streaming);
      return;
    }
    this.streaming = streaming;
    this.root.classList.toggle("cursor", streaming);
    const wait = this.nextAt - performance.now();
    if (streaming && this.spaced && wait > 0) {
      this.pending = { text, streaming };
      this.timer ??= setTimeout(() => this.flush(), wait);
      return;
    }
    this.pending = { text, streaming };
    this.flush();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    const started = performance.now();
    let full = true;
    try {
      full = this.render(p.text, p.streaming);
      this.failed = false;
    } catch (err) {
      this.fallback(p.text, err);
    }
    this.text = p.text;
    this.onRender?.();
    // While streaming, the layout this render causes is part of its cost: the
    // view lays out now (the frame would do it anyway) to know it.
    if (p.streaming && this.spaced && this.root.isConnected) void this.root.offsetHeight;
    const cost = performance.now() - started;
    this.nextAt = performance.now() + Math.max(MIN_GAP_MS, (cost * (1 - DUTY)) / DUTY);
    if (full && p.streaming && this.spaced && this.tailBytes(p.text) > this.plainBytes) {
      this.fullAt = performance.now() + Math.max(FULL_MIN_GAP_MS, (cost * (1 - FULL_DUTY)) / FULL_DUTY);
    }
    // A stream that pauses still gets its long block rendered fully in time.
    if (!full && !this.fullTimer) {
      this.fullTimer = setTimeout(() => {
        this.fullTimer = null;
        if (!this.plain || !this.streaming) return;
        this.pending ??= { text: this.text, streaming: true };
        this.flush();
      }, Math.max(0, this.fullAt - performance.now()));
    }
  }

  /** Where re-parsing starts when text is appended: the last block, or the one before when no blank line separates them. */
  private reparseFrom(): number {
    const n = this.shown.length;
    if (n === 0) return 0;
    const last = this.shown[n - 1]!;
    const prev = this.shown[n - 2];
    if (!prev) return last.start;
    // A line between the two (a blank one: every other line belongs to a block) ends
    // the block before for good.
    return prev.end < last.start ? last.start : prev.start;
  }

  /** How much source an appending render of `text` would parse. */
  private tailBytes(text: string): number {
    return this.whole ? text.length : text.length - this.reparseFrom();
  }

  /**
   * Renders `text`; returns false when it only appended raw text to a long
   * streaming block (a full render of it is due at `fullAt`).
   */
  private render(text: string, streaming: boolean): boolean {
    const appended = !this.failed && !this.whole && this.shown.length > 0 && text.startsWith(this.text);
    if (appended && streaming && this.spaced && performance.now() < this.fullAt && this.tailBytes(text) > this.plainBytes) {
      this.appendPlain(text.slice(this.text.length));
      return false;
    }
    if (this.fullTimer) clearTimeout(this.fullTimer);
    this.fullTimer = null;
    this.plain?.parentElement?.remove();
    this.plain = null;
    this.renderFull(text, streaming, appended);
    return true;
  }

  /** Appends raw text at the end of the last block's last element, until the next full render. */
  private appendPlain(s: string): void {
    if (this.plain) {
      this.plain.appendData(s);
      return;
    }
    const last = this.shown[this.shown.length - 1]!;
    let into: Element | null = null;
    for (let i = last.nodes.length - 1; i >= 0 && !into; i--) if (last.nodes[i] instanceof Element) into = last.nodes[i] as Element;
    into ??= last.page?.el ?? this.root;
    while (into.lastElementChild && INTO.has(into.lastElementChild.tagName) && into.tagName !== "P" && into.tagName !== "CODE") into = into.lastElementChild;
    const span = this.doc.createElement("span");
    span.className = "plain";
    this.plain = span.appendChild(this.doc.createTextNode(s));
    into.appendChild(span);
  }

  private renderFull(text: string, streaming: boolean, appended: boolean): void {
    const from = appended ? this.reparseFrom() : 0;
    let keep = 0;
    if (appended) while (keep < this.shown.length && this.shown[keep]!.start < from) keep++;
    const tail = text.slice(from);
    const parsed = parse(tail);
    if (parsed.hasReferences && from > 0) {
      this.whole = true;
      this.renderFull(text, streaming, false);
      return;
    }
    this.whole = parsed.hasReferences;
    if (appended) {
      for (const b of this.shown.splice(keep)) {
        for (const n of b.nodes) (n as ChildNode).remove();
        if (b.page) b.page.blocks--;
      }
      // Blocks go away only from the end: so do emptied pages.
      while (this.pages.length > 0 && this.pages[this.pages.length - 1]!.blocks === 0) this.pages.pop()!.el.remove();
      this.pages[this.pages.length - 1]?.el.classList.remove("settled");
    } else {
      this.root.textContent = "";
      this.shown = [];
      this.pages = [];
    }
    const blocks = topBlocks(parsed.tokens);
    this.lastHasCode = blocks[blocks.length - 1]?.tokens.some((t) => t.type === "fence" || t.type === "code_block") ?? false;
    const offsets = lineOffsets(tail);
    blocks.forEach((b: Block, i) => {
      const frag = this.doc.createDocumentFragment();
      // The last block of a streaming text changes with every update: no highlighting yet.
      renderTokens(b.tokens, frag, this.doc, { highlight: !(streaming && i === blocks.length - 1) });
      const nodes = Array.from(frag.childNodes);
      const page = this.page();
      page.el.appendChild(frag);
      page.blocks++;
      const endLine = b.tokens[0]?.map?.[1] ?? b.line + 1;
      this.shown.push({ start: from + (offsets[b.line] ?? tail.length), end: from + (offsets[endLine] ?? tail.length), nodes, page });
    });
    if (blocks.length === 0) this.shown.push({ start: from, end: from, nodes: [], page: null });
  }

  /** The page a new block goes to: the last one, or a new one when it is full (the full one settles). */
  private page(): Page {
    const last = this.pages[this.pages.length - 1];
    if (last && last.blocks < PAGE_BLOCKS) return last;
    last?.el.classList.add("settled");
    const el = this.doc.createElement("div");
    el.className = "page";
    this.root.appendChild(el);
    const page = { el, blocks: 0 };
    this.pages.push(page);
    return page;
  }

  private fallback(text: string, err: unknown): void {
    this.failed = true;
    this.plain = null;
    this.shown = [];
    this.pages = [];
    const note = this.doc.createElement("div");
    note.className = "note bad";
    note.textContent = `This message could not be formatted (${(err as Error)?.message ?? err}); its text is shown as written.`;
    const pre = this.doc.createElement("pre");
    pre.className = "raw";
    pre.textContent = text;
    this.root.replaceChildren(note, pre);
  }
}

/** The offset of the start of each line of `s`. */
function lineOffsets(s: string): number[] {
  const out = [0];
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}
