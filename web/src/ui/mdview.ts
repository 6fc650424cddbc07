// The Markdown body of one message, kept current as its text grows. While text
// is appended (streaming), only the last two top-level blocks are parsed and
// rebuilt: the blocks above them cannot change by appending, except through a
// link reference definition, which makes the view re-render everything. So the cost
// of a streamed answer grows with its length, not with length × updates.
//
// A render that throws shows the raw text with a notice instead; the next
// update tries again. While a single long block (one huge paragraph or list)
// makes every render costly, renders are spaced out so they never take more
// than about a tenth of the main thread (plus their layout); the latest text is always shown in the
// end.
//
// Blocks are kept in pages of up to PAGE_BLOCKS blocks. Every page but the last
// is "settled" (class `settled`, which the styles give `content-visibility:
// auto`): the browser skips the layout and paint of settled pages off screen,
// so a frame of a long streaming answer costs about what is in view. The last
// page, which holds the growing block, is never settled.

import { type Block, parse, renderTokens, topBlocks } from "./markdown.js";

interface Shown {
  /** Source offset where the block starts. */
  start: number;
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
  /** Called after each render (e.g. to keep a log scrolled to its end). */
  onRender: (() => void) | null = null;

  /**
   * `spaced`: space out costly renders while streaming (default). Off, every
   * set() renders at once (tests that check each step).
   */
  constructor(
    private readonly doc: Document = document,
    private readonly spaced = true,
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
    const same = text === this.text && !this.pending && !this.failed;
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
    try {
      this.render(p.text, p.streaming);
      this.failed = false;
    } catch (err) {
      this.fallback(p.text, err);
    }
    this.text = p.text;
    this.onRender?.();
    const cost = performance.now() - started;
    this.nextAt = performance.now() + Math.max(MIN_GAP_MS, (cost * (1 - DUTY)) / DUTY);
  }

  private render(text: string, streaming: boolean): void {
    const appended = !this.failed && !this.whole && this.shown.length > 0 && text.startsWith(this.text);
    // Keep every block but the last two; re-parse from where the one before the
    // last starts: appending to a line can turn the block it started (`#` → `#######`)
    // into a lazy continuation of the block before it.
    const keep = appended ? Math.max(0, this.shown.length - 2) : 0;
    const from = keep > 0 || appended ? this.shown[keep]!.start : 0;
    const tail = text.slice(from);
    const parsed = parse(tail);
    if (parsed.hasReferences && from > 0) {
      this.whole = true;
      this.render(text, streaming);
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
      this.shown.push({ start: from + (offsets[b.line] ?? tail.length), nodes, page });
    });
    if (blocks.length === 0) this.shown.push({ start: from, nodes: [], page: null });
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
