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
// Text of any size is rendered in slices. Each slice parses the source from the
// last block rendered to a blank line about `sliceBytes` further on (the same
// prefix a stream would have delivered), adapting that size so a slice takes
// about SLICE_MS; a render stops after SLICE_MS and goes on in the next task.
// Until a slice reaches it, the rest of the text is shown raw (escaped, white
// space kept): at the end of the last block's last element while it is short,
// then in chunks of RAW_CHUNK below it (all but the last `settled`, so the
// browser lays out only the ones in view). So a 2 MB delta shows at once as
// text and is formatted over the next tasks, none of them long. A parse of more
// than SPLIT_BYTES (one long block) builds its DOM in the next tasks, detached,
// a part of about SLICE_MS each, and then takes the place of what it replaces:
// the parse, the DOM work and the layout are separate tasks.
//
// A growing block too long to parse on every render (a streaming text with more
// than PLAIN_BYTES of source after the last blank line, e.g. one huge
// paragraph) is parsed at a lower rate, from its first render on: until its
// next full render is due, the text that arrives is shown raw. The end of the
// stream renders it fully, so the final DOM is the one a one-shot render gives.
//
// Blocks are kept in pages of up to PAGE_BLOCKS blocks. Every page but the last
// is "settled" (class `settled`, which the styles give `content-visibility:
// auto`): the browser skips the layout and paint of settled pages off screen,
// so a frame of a long streaming answer costs about what is in view. The last
// page, which holds the growing block, is never settled.

import { type Block, type Parsed, parse, TokenRenderer, topBlocks } from "./markdown.js";

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

/** A parse of `text[from, cut)` whose blocks replace those from `from` on, and their DOM as it is built. */
interface Slice {
  from: number;
  cut: number;
  parsed: Parsed;
  /** More text follows `cut` (the last block is not highlighted). */
  streaming: boolean;
  blocks: Block[];
  /** The DOM of each block built so far (detached), and the renderer of the one being built. */
  frags: DocumentFragment[];
  renderer: TokenRenderer | null;
}

/** Tokens a slice's DOM is built in between two looks at the clock. */
const BUILD_TOKENS = 256;

/** Blocks per page: pages above the last are skipped by layout while off screen. */
const PAGE_BLOCKS = 16;

/** How much of the main thread a growing message may take while streaming. */
const DUTY = 0.1;
/**
 * At most this often while streaming: every second animation frame. Each render
 * also costs the browser a layout and a paint; 30 updates a second read as smooth.
 */
const MIN_GAP_MS = 32;
/** Source after the last blank line above which a streaming block is parsed at a lower rate. */
const PLAIN_BYTES = 16 * 1024;
/** How much of the main thread the full renders of such a block may take. */
const FULL_DUTY = 0.05;
/** At most this often, such a block is rendered fully while it streams. */
const FULL_MIN_GAP_MS = 250;
/** Source parsed by the first slice of a view; later slices adapt to SLICE_MS. */
const SLICE_BYTES = 32 * 1024;
const MIN_SLICE_BYTES = 8 * 1024;
const MAX_SLICE_BYTES = 512 * 1024;
/** About how long one slice, and one task of a render, may take. */
const SLICE_MS = 12;
/** A parse of more source than this builds its DOM in the next task. */
const SPLIT_BYTES = 32 * 1024;
/**
 * Raw text up to this long continues the last block; more goes in chunks below it.
 * So does all raw text after a long last block: text added inside a block lays the
 * whole block out again, text in a chunk below it only that chunk.
 */
const INLINE_RAW = 16 * 1024;
/** Characters per chunk of raw text. */
const RAW_CHUNK = 16 * 1024;
/** Block elements the raw text is appended into the last of. */
const INTO = new Set(["P", "LI", "UL", "OL", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR", "TD", "TH", "DIV", "PRE", "CODE", "H1", "H2", "H3", "H4", "H5", "H6"]);

export class MarkdownView {
  readonly root: HTMLElement;
  /** What set() asked for last. */
  private goal = { text: "", streaming: false };
  /** The last text given to set(), and it with \r\n as \n (a long text is not scanned again). */
  private raw = "";
  private normal = "";
  /** The text shown: rendered as Markdown up to `parsed`, raw after it. */
  private text = "";
  private parsed = 0;
  /** The rendered blocks were rendered as a streaming text (their last block not highlighted). */
  private renderedStreaming = false;
  private shown: Shown[] = [];
  private pages: Page[] = [];
  /** The text defines link references: always render the whole text. */
  private whole = false;
  private failed = false;
  /** The last block holds code, which is highlighted only once the text is complete. */
  private lastHasCode = false;
  /** A parse whose DOM the next steps build. */
  private ahead: Slice | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the timer fires. */
  private timerAt = 0;
  /** A run is queued for the next task (a render in slices goes on). */
  private continuing = false;
  private nextAt = 0;
  /** Not before this time is a long streaming block rendered fully again (0: not rendered yet). */
  private fullAt = 0;
  private sliceBytes = SLICE_BYTES;
  /** Raw text: first at the end of the last block (`rawInline`), then in chunks in `rawBox`. */
  private rawInline: Text | null = null;
  private rawChunks: Text[] = [];
  private readonly rawBox: HTMLElement;
  private idle: (() => void)[] = [];
  /** Called after each render (e.g. to keep a log scrolled to its end). */
  onRender: (() => void) | null = null;

  /**
   * `spaced`: space out costly renders while streaming, and render long texts in
   * slices (default). Off, every set() renders at once and whole (tests that
   * check each step). `plainBytes`: how much source after the last blank line
   * makes a streaming block one that is parsed at a lower rate.
   */
  constructor(
    private readonly doc: Document = document,
    private readonly spaced = true,
    private readonly plainBytes = PLAIN_BYTES,
  ) {
    this.root = doc.createElement("div");
    this.root.className = "md";
    this.rawBox = doc.createElement("div");
    this.rawBox.className = "pending";
  }

  /** The text this view shows (or will show once a spaced-out render runs). */
  get current(): string {
    return this.goal.text;
  }

  /** Set text not shown in any form yet (a spaced-out render will show it). */
  private get pending(): boolean {
    return this.goal.text !== this.text;
  }

  /** Resolves once the view shows its text fully rendered (or raw, after a render that threw). */
  rendered(): Promise<void> {
    if (this.complete() || this.failed) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /**
   * Shows `text`. `streaming`: more text will follow, so the last block is not
   * highlighted yet and renders may be spaced out when they are costly.
   */
  set(raw: string, streaming: boolean): void {
    // markdown-it reads \r and \r\n as \n: so must the block offsets below.
    if (raw !== this.raw) {
      this.raw = raw;
      this.normal = raw.includes("\r") ? raw.replace(/\r\n?/g, "\n") : raw;
    }
    const text = this.normal;
    this.goal = { text, streaming };
    this.root.classList.toggle("cursor", streaming);
    // Same text, same state. A stream that ended re-renders its last block once,
    // now highlighted, when it holds code (else it is already as it stays).
    if (this.complete()) return;
    const extends_ = !this.failed && (text === this.text || text.startsWith(this.text));
    if (!this.spaced || !streaming || !extends_) return this.run();
    // A render in slices goes on in the next task: new text joins the raw text at once.
    if (this.continuing) return this.showRaw();
    // Raw text too is shown at the pace of renders (each costs a layout of its block).
    if (this.nextAt > performance.now()) this.runAt(this.nextAt);
    else this.run();
  }

  /** Runs at `at` (or earlier, when a run is due earlier already). */
  private runAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.run(), Math.max(0, at - performance.now()));
  }

  /** Whether the view shows the goal fully rendered. */
  private complete(): boolean {
    const g = this.goal;
    return (
      !this.failed &&
      !this.ahead &&
      this.parsed === g.text.length &&
      this.text === g.text &&
      (this.renderedStreaming === g.streaming || (!g.streaming && !this.lastHasCode))
    );
  }

  /** Renders towards the goal for about SLICE_MS (all of it when not spaced), then shows the rest raw. */
  private run(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const g = this.goal;
    const started = performance.now();
    let wait = false;
    try {
      if (this.failed || (g.text !== this.text && !g.text.startsWith(this.text))) this.reset();
      // Much new text: it shows raw at once, and is formatted from the next task on.
      const backlog = this.spaced && g.text.length - this.text.length > 4 * this.sliceBytes;
      while (!backlog && !this.complete()) {
        const t0 = performance.now();
        const bytes = this.step(this.spaced ? this.sliceBytes : Infinity, this.spaced ? started + SLICE_MS : Infinity);
        if (bytes === "wait") {
          wait = true;
          break;
        }
        const ms = performance.now() - t0;
        // Halfway to the size that would take SLICE_MS at this step's pace.
        if (bytes >= MIN_SLICE_BYTES && ms > 0.5) this.sliceBytes = Math.min(MAX_SLICE_BYTES, Math.max(MIN_SLICE_BYTES, Math.round((this.sliceBytes + (bytes / ms) * SLICE_MS) / 2)));
        if (this.spaced && performance.now() - started >= SLICE_MS) break;
      }
      this.showRaw();
    } catch (err) {
      this.fallback(g.text, err);
    }
    this.onRender?.();
    const done = this.complete() || this.failed;
    if (done || wait) {
      // While streaming, the layout this render causes is part of its cost: the
      // view lays out now (the frame would do it anyway) to know it; not after a
      // task that took its share already (the frame lays out in a task of its own).
      if (g.streaming && this.spaced && this.root.isConnected && performance.now() - started < SLICE_MS) void this.root.offsetHeight;
      const cost = performance.now() - started;
      this.nextAt = performance.now() + Math.max(MIN_GAP_MS, (cost * (1 - DUTY)) / DUTY);
    }
    if (done) {
      for (const r of this.idle.splice(0)) r();
    } else if (wait) {
      // A long streaming block waits for its next full render, even if the stream pauses.
      this.runAt(this.fullAt);
    } else if (!this.continuing) {
      this.continuing = true;
      nextTask(() => {
        this.continuing = false;
        this.run();
      });
    }
  }

  /**
   * One slice: builds the DOM of a parse done by the previous step, or parses
   * the source from the last block to a blank line about `budget` further on (or
   * to the end) and renders it. Returns the source bytes parsed, or "wait" when
   * it is a long streaming block whose next full render is not due yet.
   */
  private step(budget: number, deadline: number): number | "wait" {
    if (this.ahead) {
      if (this.build(this.ahead, deadline)) {
        const slice = this.ahead;
        this.ahead = null;
        this.place(slice);
      }
      return 0;
    }
    const g = this.goal;
    const text = g.text;
    const from = this.whole ? 0 : this.reparseFrom();
    // More source than this to parse is cut at a blank line; without one, a
    // streaming text's growing block that is longer is a long block.
    const longAt = !this.spaced ? Infinity : g.streaming ? Math.min(budget, this.plainBytes) : budget;
    let cut = text.length;
    let long = false;
    if (!this.whole && text.length - from > longAt) {
      const end = Math.min(text.length, Math.max(from + budget, this.parsed + 1));
      const blank = text.lastIndexOf("\n\n", end - 2);
      if (blank >= 0 && blank + 2 > this.parsed) cut = blank + 2;
      else {
        const next = end >= text.length ? -1 : text.indexOf("\n\n", end);
        cut = next < 0 ? text.length : next + 2;
        long = cut - from > longAt;
      }
    }
    const t0 = performance.now();
    if (long && g.streaming) {
      // The first render of a long block is raw too: formatting follows at the lower rate.
      if (this.fullAt === 0) this.fullAt = t0 + FULL_MIN_GAP_MS;
      if (t0 < this.fullAt) return "wait";
    }
    const parsed = parse(text.slice(from, cut));
    if (parsed.hasReferences && from > 0) {
      // A link reference changes links above it: everything is parsed again, now.
      this.whole = true;
      const all = this.slice(0, text.length, parse(text), g.streaming);
      this.build(all, Infinity);
      this.place(all);
      return text.length;
    }
    const slice = this.slice(from, cut, parsed, g.streaming || cut < text.length);
    if (this.spaced && cut - from > SPLIT_BYTES) this.ahead = slice;
    else {
      this.build(slice, Infinity);
      this.place(slice);
    }
    // A long streaming block rendered fully: its next full render is spaced out.
    if (long && g.streaming) this.fullAt = performance.now() + Math.max(FULL_MIN_GAP_MS, ((performance.now() - t0) * (1 - FULL_DUTY)) / FULL_DUTY);
    return cut - from;
  }

  private slice(from: number, cut: number, parsed: Parsed, streaming: boolean): Slice {
    return { from, cut, parsed, streaming, blocks: topBlocks(parsed.tokens), frags: [], renderer: null };
  }

  /** Builds the slice's DOM until `deadline`; true when it is built. */
  private build(slice: Slice, deadline: number): boolean {
    const { blocks, frags } = slice;
    for (;;) {
      if (!slice.renderer) {
        const i = frags.length;
        if (i >= blocks.length) return true;
        const frag = this.doc.createDocumentFragment();
        frags.push(frag);
        // The last block of a streaming text changes with every update: no highlighting yet.
        slice.renderer = new TokenRenderer(blocks[i]!.tokens, frag, this.doc, { highlight: !(slice.streaming && i === blocks.length - 1) });
      }
      if (slice.renderer.run(deadline === Infinity ? Infinity : BUILD_TOKENS)) slice.renderer = null;
      else if (performance.now() >= deadline) return false;
    }
  }

  /** Replaces the blocks from `slice.from` on with the slice's (built); the raw text they cover goes. */
  private place(slice: Slice): void {
    const { from, cut, parsed, streaming, blocks, frags } = slice;
    let keep = 0;
    while (keep < this.shown.length && this.shown[keep]!.start < from) keep++;
    for (const b of this.shown.splice(keep)) {
      for (const n of b.nodes) (n as ChildNode).remove();
      if (b.page) b.page.blocks--;
    }
    // Blocks go away only from the end: so do emptied pages.
    while (this.pages.length > 0 && this.pages[this.pages.length - 1]!.blocks === 0) this.pages.pop()!.el.remove();
    this.pages[this.pages.length - 1]?.el.classList.remove("settled");
    if (from === 0) this.whole = parsed.hasReferences;
    const src = this.goal.text.slice(from, cut);
    this.lastHasCode = blocks[blocks.length - 1]?.tokens.some((t) => t.type === "fence" || t.type === "code_block") ?? false;
    const offsets = lineOffsets(src);
    blocks.forEach((b: Block, i) => {
      const frag = frags[i]!;
      const nodes = Array.from(frag.childNodes);
      const page = this.page();
      page.el.appendChild(frag);
      page.blocks++;
      const endLine = b.tokens[0]?.map?.[1] ?? b.line + 1;
      this.shown.push({ start: from + (offsets[b.line] ?? src.length), end: from + (offsets[endLine] ?? src.length), nodes, page });
    });
    if (blocks.length === 0) this.shown.push({ start: from, end: from, nodes: [], page: null });
    const before = this.parsed;
    this.parsed = cut;
    if (cut > this.text.length) this.text = cut === this.goal.text.length ? this.goal.text : this.goal.text.slice(0, cut);
    this.renderedStreaming = streaming;
    this.dropRaw(before, cut);
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

  /** Shows the goal's text after what is shown as raw text (it extends it). */
  private showRaw(): void {
    const goal = this.goal.text;
    if (goal.length <= this.text.length || this.failed || !goal.startsWith(this.text)) return;
    this.appendRaw(goal.slice(this.text.length));
    this.text = goal;
  }

  private appendRaw(s: string): void {
    if (this.rawChunks.length === 0 && (this.rawInline?.length ?? 0) + s.length <= INLINE_RAW) {
      if (this.rawInline) return this.rawInline.appendData(s);
      const into = this.inlineTarget();
      if (into) {
        const span = this.doc.createElement("span");
        span.className = "plain";
        this.rawInline = span.appendChild(this.doc.createTextNode(s));
        into.appendChild(span);
        return;
      }
    }
    // The last chunk fills up; new chunks are built detached and added at once
    // (text set on a node in the page costs a layout update per change).
    const last = this.rawChunks[this.rawChunks.length - 1];
    if (last && last.length < RAW_CHUNK) {
      const take = charsUpTo(s, RAW_CHUNK - last.length);
      last.appendData(s.slice(0, take));
      s = s.slice(take);
    }
    if (!s) return;
    last?.parentElement!.classList.add("settled");
    const frag = this.doc.createDocumentFragment();
    while (s) {
      const take = charsUpTo(s, RAW_CHUNK);
      const div = frag.appendChild(this.doc.createElement("div"));
      div.className = take < s.length ? "plain settled" : "plain";
      this.rawChunks.push(div.appendChild(this.doc.createTextNode(s.slice(0, take))));
      s = s.slice(take);
    }
    this.rawBox.appendChild(frag);
    if (!this.rawBox.parentNode) this.root.appendChild(this.rawBox);
  }

  /** The element raw text continues: the last element of the last block, as deep as text flows (none after a long block). */
  private inlineTarget(): Element | null {
    const last = this.shown[this.shown.length - 1];
    if (!last || last.end - last.start > Math.min(INLINE_RAW, this.plainBytes)) return null;
    let into: Element | null = null;
    for (let i = last.nodes.length - 1; i >= 0 && !into; i--) if (last.nodes[i] instanceof Element) into = last.nodes[i] as Element;
    if (!into) return null;
    while (into.lastElementChild && INTO.has(into.lastElementChild.tagName) && into.tagName !== "P" && into.tagName !== "CODE") into = into.lastElementChild;
    return into;
  }

  /**
   * After blocks were rendered up to `cut`: the raw text shown from `before` on
   * loses what they cover (the inline part goes with the block it was in; what
   * of it they do not cover is shown again).
   */
  private dropRaw(before: number, cut: number): void {
    const inline = this.rawInline?.data ?? "";
    (this.rawInline?.parentNode as ChildNode | null | undefined)?.remove();
    this.rawInline = null;
    const chunksFrom = before + inline.length;
    let drop = Math.max(0, cut - chunksFrom);
    while (drop > 0 && this.rawChunks.length > 0) {
      const first = this.rawChunks[0]!;
      if (first.length <= drop) {
        drop -= first.length;
        first.parentElement!.remove();
        this.rawChunks.shift();
      } else {
        first.deleteData(0, drop);
        drop = 0;
      }
    }
    if (this.rawChunks.length === 0) this.rawBox.remove();
    const left = cut < chunksFrom ? inline.slice(Math.max(0, cut - before)) : "";
    if (!left) return;
    if (this.rawChunks.length === 0) return this.appendRaw(left);
    const div = this.doc.createElement("div");
    div.className = "plain settled";
    this.rawChunks.unshift(div.appendChild(this.doc.createTextNode(left)));
    this.rawBox.prepend(div);
  }

  /** The page a new block goes to: the last one, or a new one when it is full (the full one settles). */
  private page(): Page {
    const last = this.pages[this.pages.length - 1];
    if (last && last.blocks < PAGE_BLOCKS) return last;
    last?.el.classList.add("settled");
    const el = this.doc.createElement("div");
    el.className = "page";
    this.root.insertBefore(el, this.rawBox.parentNode === this.root ? this.rawBox : null);
    const page = { el, blocks: 0 };
    this.pages.push(page);
    return page;
  }

  /** Forgets what is shown: the next steps render the goal from its start. */
  private reset(): void {
    this.root.textContent = "";
    this.text = "";
    this.parsed = 0;
    this.shown = [];
    this.pages = [];
    this.whole = false;
    this.failed = false;
    this.lastHasCode = false;
    this.renderedStreaming = false;
    this.ahead = null;
    this.fullAt = 0;
    this.rawInline = null;
    this.rawChunks = [];
    this.rawBox.textContent = "";
  }

  private fallback(text: string, err: unknown): void {
    this.reset();
    this.failed = true;
    this.text = text;
    this.parsed = text.length;
    const note = this.doc.createElement("div");
    note.className = "note bad";
    note.textContent = `This message could not be formatted (${(err as Error)?.message ?? err}); its text is shown as written.`;
    const pre = this.doc.createElement("pre");
    pre.className = "raw";
    pre.textContent = text;
    this.root.replaceChildren(note, pre);
  }
}

/** How many UTF-16 units of `s`, at most `max` (at least one character), end on a character boundary. */
function charsUpTo(s: string, max: number): number {
  if (s.length <= max) return s.length;
  const n = Math.max(1, max);
  const c = s.charCodeAt(n - 1);
  return c >= 0xd800 && c <= 0xdbff ? (n > 1 ? n - 1 : n + 1) : n;
}

/** The offset of the start of each line of `s`. */
function lineOffsets(s: string): number[] {
  const out = [0];
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}

/** Runs `fn` in a new task (a message: not clamped like nested timers, and input and frames run between). */
const queue: (() => void)[] = [];
let channel: MessageChannel | null = null;
function nextTask(fn: () => void): void {
  if (typeof MessageChannel !== "function") return void setTimeout(fn, 0);
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => queue.shift()?.();
  }
  queue.push(fn);
  channel.port2.postMessage(null);
}
