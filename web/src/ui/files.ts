// The file explorer over the virtual file system: a tree of every entry, a
// viewer/editor for text files (save, delete, new file). It follows changes made
// by tools, by scripts and by other tabs (VirtualFS.onChange). The tree renders
// only the rows in view (rows.ts), so a folder of 20,000 files opens as fast as
// one of 20; arrow keys, Home and End move between rows, Enter opens a file.

import { showInvisible, type VfsStat, type VirtualFS } from "../vfs/index.js";
import { h } from "./dom.js";
import { VirtualRows } from "./rows.js";
import { storageLine } from "./storage.js";

export class FilesView {
  readonly root: HTMLElement;
  private readonly tree = h("ul", { attrs: { "aria-label": "Files", role: "tree" } });
  private readonly rows: VirtualRows<VfsStat>;
  /** Where a new file's path is typed. */
  private readonly newFile = h("div", { class: "new-path", attrs: { hidden: true } });
  private readonly editor = h("div", { class: "editor", attrs: { hidden: true } });
  private readonly text = h("textarea", { attrs: { "aria-label": "File content", spellcheck: "false" } });
  private readonly pathLabel = h("div", { class: "path" });
  private readonly status = h("span");
  /** Used / quota of this site's storage: what to watch before it is full. */
  private readonly storage = h("div", { class: "storage meta", attrs: { "aria-live": "polite" } });
  private open: { path: string; version: number; dirty: boolean } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly off: () => void;
  private visible = false;

  constructor(private readonly vfs: VirtualFS) {
    this.text.addEventListener("input", () => {
      if (this.open) this.open.dirty = true;
      this.status.textContent = "edited";
    });
    this.text.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "s") {
        e.preventDefault();
        void this.save();
      }
    });
    this.editor.append(
      this.pathLabel,
      this.text,
      h(
        "div",
        { class: "row" },
        this.status,
        h("button", { class: "danger", on: { click: () => void this.remove() } }, "Delete"),
        h("button", { on: { click: () => this.close() } }, "Close"),
        h("button", { class: "primary save", on: { click: () => void this.save() } }, "Save"),
      ),
    );
    this.root = h(
      "aside",
      { class: "files", attrs: { "aria-label": "Files in this browser", hidden: true } },
      h("div", { class: "tools" }, h("span", { class: "label" }, "Files"), h("button", { class: "new-file", on: { click: () => void this.create() } }, "+ New")),
      this.storage,
      this.newFile,
      this.tree,
      this.editor,
    );
    this.rows = new VirtualRows<VfsStat>({
      list: this.tree,
      key: (e) => `${e.type}:${e.size}:${e.path}`,
      render: (e) => this.row(e),
    });
    this.tree.addEventListener("keydown", (e) => this.move(e));
    this.off = vfs.onChange(() => this.schedule());
  }

  setVisible(v: boolean): void {
    this.visible = v;
    this.root.hidden = !v;
    if (v) void this.refresh();
  }

  dispose(): void {
    this.off();
    this.rows.dispose();
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, 80);
  }

  async refresh(): Promise<void> {
    if (!this.visible) return;
    void storageLine().then((t) => (this.storage.textContent = t));
    let entries: VfsStat[];
    try {
      entries = (await this.vfs.walk("/")).filter((e) => e.path !== "/").sort((a, b) => (a.path < b.path ? -1 : 1));
    } catch (err) {
      this.rows.setItems([], h("li", { class: "dir" }, `Cannot read files: ${(err as Error).message}`));
      return;
    }
    this.rows.setItems(entries, h("li", { class: "dir" }, "No files yet. Tools write here."));
    if (this.open) await this.syncOpen();
  }

  /** One entry's row: a file opens on click and Enter; a folder is a heading. */
  private row(e: VfsStat): HTMLElement {
    const depth = e.path.split("/").length - 2;
    const active = this.open?.path === e.path;
    const li = h(
      "li",
      {
        class: `${e.type}${active ? " active" : ""}`,
        title: e.type === "file" ? `${showInvisible(e.path)} (${e.size} bytes)` : showInvisible(e.path),
        attrs: { "data-path": e.path, role: "treeitem", tabindex: e.type === "file" ? 0 : -1 },
        on:
          e.type === "file"
            ? { click: () => void this.view(e.path), keydown: (ev) => ev.key === "Enter" && void this.view(e.path) }
            : {},
      },
      // Names stored before bidi/zero-width characters were refused show them escaped.
      e.type === "dir" ? `${showInvisible(e.name)}/` : showInvisible(e.name),
    );
    // CSSOM, not a style attribute: pages with a strict style-src CSP allow it.
    li.style.paddingLeft = `${6 + depth * 14}px`;
    return li;
  }

  /** Arrow keys, Home and End move the focus between rows, rendering the one they reach. */
  private move(e: KeyboardEvent): void {
    const keys: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, Home: -Infinity, End: Infinity, PageDown: 10, PageUp: -10 };
    const step = keys[e.key];
    if (step === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
    const from = this.rows.indexOf(e.target as Element);
    if (from < 0) return;
    e.preventDefault();
    const to = Math.min(this.rows.size - 1, Math.max(0, from + step));
    this.rows.reveal(to)?.focus();
  }

  async view(path: string): Promise<void> {
    try {
      const [content, st] = await Promise.all([this.vfs.readFile(path), this.vfs.stat(path)]);
      this.open = { path, version: st.version, dirty: false };
      this.pathLabel.textContent = showInvisible(path);
      this.text.value = content;
      this.status.textContent = `${st.size} bytes`;
      this.editor.hidden = false;
      for (const li of this.rows.rendered()) li.classList.toggle("active", li.dataset.path === path);
    } catch (err) {
      this.status.textContent = (err as Error).message;
    }
  }

  /** The open file changed elsewhere: reload it unless the person has edits. */
  private async syncOpen(): Promise<void> {
    const o = this.open!;
    try {
      const st = await this.vfs.stat(o.path);
      if (st.version === o.version) return;
      if (o.dirty) this.status.textContent = "changed elsewhere; saving overwrites it";
      else await this.view(o.path);
    } catch {
      this.status.textContent = "deleted";
    }
  }

  private async save(): Promise<void> {
    const o = this.open;
    if (!o) return;
    try {
      const r = await this.vfs.writeFile(o.path, this.text.value);
      o.dirty = false;
      o.version = (await this.vfs.stat(o.path)).version;
      this.status.textContent = `saved, ${r.bytes} bytes`;
    } catch (err) {
      this.status.textContent = `not saved: ${(err as Error).message}`;
    }
  }

  private async remove(): Promise<void> {
    const o = this.open;
    if (!o) return;
    if (this.status.dataset.confirm !== o.path) {
      this.status.dataset.confirm = o.path;
      this.status.textContent = "click Delete again to delete this file";
      return;
    }
    delete this.status.dataset.confirm;
    try {
      await this.vfs.remove(o.path);
      this.close();
    } catch (err) {
      this.status.textContent = (err as Error).message;
    }
  }

  private close(): void {
    this.open = null;
    this.editor.hidden = true;
    for (const li of this.rows.rendered()) li.classList.remove("active");
  }

  private async create(): Promise<void> {
    const shown = this.newFile.querySelector("input");
    if (shown) return shown.focus();
    const input = h("input", { props: { type: "text", placeholder: "/notes/new.md" }, attrs: { "aria-label": "New file path" } });
    this.newFile.replaceChildren(input);
    this.newFile.hidden = false;
    input.focus();
    let finished = false;
    const done = async (ok: boolean) => {
      if (finished) return;
      finished = true;
      const path = input.value.trim();
      input.remove();
      this.newFile.hidden = !this.newFile.firstChild;
      if (!ok || !path) return;
      try {
        if (!(await this.vfs.exists(path))) await this.vfs.writeFile(path, "");
        await this.view(path.startsWith("/") ? path : `/${path}`);
      } catch (err) {
        this.status.textContent = (err as Error).message;
      }
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") void done(true);
      if (e.key === "Escape") void done(false);
    });
    input.addEventListener("blur", () => void done(false));
  }
}
