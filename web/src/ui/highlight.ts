// Syntax highlighting with highlight.js core. This module and each language are
// loaded on first use (separate chunks of the build), so a page that never shows
// code never downloads them. The highlighted HTML highlight.js returns is read in
// an inert document and copied node by node: only text and <span> elements with
// highlight.js class names come through, so it can never carry other markup.

import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";

type Loader = () => Promise<{ default: LanguageFn }>;

const LOADERS: Record<string, Loader> = {
  javascript: () => import("highlight.js/lib/languages/javascript"),
  typescript: () => import("highlight.js/lib/languages/typescript"),
  python: () => import("highlight.js/lib/languages/python"),
  bash: () => import("highlight.js/lib/languages/bash"),
  json: () => import("highlight.js/lib/languages/json"),
  xml: () => import("highlight.js/lib/languages/xml"),
  css: () => import("highlight.js/lib/languages/css"),
  go: () => import("highlight.js/lib/languages/go"),
  java: () => import("highlight.js/lib/languages/java"),
  rust: () => import("highlight.js/lib/languages/rust"),
  sql: () => import("highlight.js/lib/languages/sql"),
  yaml: () => import("highlight.js/lib/languages/yaml"),
  cpp: () => import("highlight.js/lib/languages/cpp"),
  diff: () => import("highlight.js/lib/languages/diff"),
};

const ALIASES: Record<string, string> = {
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", node: "javascript",
  ts: "typescript", tsx: "typescript",
  py: "python", python3: "python",
  sh: "bash", shell: "bash", zsh: "bash", console: "bash",
  html: "xml", svg: "xml", xhtml: "xml",
  golang: "go",
  rs: "rust",
  yml: "yaml",
  c: "cpp", "c++": "cpp", h: "cpp", hpp: "cpp", cc: "cpp",
  patch: "diff",
};

/** The highlight.js language for a fence's info string, or null if none is bundled. */
export function languageOf(lang: string): string | null {
  const l = lang.toLowerCase();
  if (Object.hasOwn(LOADERS, l)) return l;
  return Object.hasOwn(ALIASES, l) ? ALIASES[l]! : null;
}

const loading = new Map<string, Promise<void>>();

function load(name: string): Promise<void> {
  let p = loading.get(name);
  if (!p) {
    p = LOADERS[name]!().then((m) => hljs.registerLanguage(name, m.default));
    loading.set(name, p);
  }
  return p;
}

/**
 * Highlights `code` as `lang` and returns the nodes to put inside <code>, or null
 * when the language is not bundled (the code then stays plain text).
 */
export async function highlight(code: string, lang: string, doc: Document): Promise<DocumentFragment | null> {
  const name = languageOf(lang);
  if (!name) return null;
  await load(name);
  // HTML parsing turns \r\n into \n; so does this, so the text shown is the text copied.
  const html = hljs.highlight(code.replace(/\r\n?/g, "\n"), { language: name, ignoreIllegals: true }).value;
  const inert = new DOMParser().parseFromString(`<pre>${html}</pre>`, "text/html");
  const out = doc.createDocumentFragment();
  copy(inert.body.firstChild!, out, doc);
  return out;
}

const CLASS = /^(hljs-[\w-]+|[\w-]+_)$/;

function copy(from: Node, to: Node, doc: Document): void {
  for (const n of Array.from(from.childNodes)) {
    if (n.nodeType === Node.TEXT_NODE) {
      to.appendChild(doc.createTextNode(n.nodeValue ?? ""));
    } else if (n instanceof Element) {
      if (n.tagName === "SPAN") {
        const span = doc.createElement("span");
        const cls = (n.getAttribute("class") ?? "").split(/\s+/).filter((c) => CLASS.test(c));
        if (cls.length) span.className = cls.join(" ");
        copy(n, span, doc);
        to.appendChild(span);
      } else {
        to.appendChild(doc.createTextNode(n.textContent ?? ""));
      }
    }
  }
}
