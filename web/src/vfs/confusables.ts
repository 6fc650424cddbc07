// When two names look alike to a person: Unicode compatibility (NFKC), case and
// the confusable mappings of UTS #39 (only those onto printable ASCII: enough to
// tell that a path looks like /AGENT.md, /.scripts or holds a slash or a dot it
// does not have). Used by the permission matrix and the VFS, so a name cannot
// pass for another one in a confirmation.

import { CONFUSABLE_PAIRS } from "./confusables-data.js";

let table: Map<string, string> | null = null;

function confusables(): Map<string, string> {
  if (table) return table;
  table = new Map();
  for (const pair of CONFUSABLE_PAIRS.split("\n")) {
    const from = String.fromCodePoint(pair.codePointAt(0) as number);
    table.set(from, pair.slice(from.length));
  }
  return table;
}

/** The ASCII text a character is confusable with, or undefined. */
export function confusableWith(ch: string): string | undefined {
  return confusables().get(ch);
}

/**
 * UTS #39's skeleton, over NFKC text and with the ASCII part of the mapping
 * (`АGENT.md` with a Cyrillic А becomes `AGENT.rnd`, as does `AGENT.md`).
 */
export function skeleton(text: string): string {
  const map = confusables();
  let out = "";
  for (const ch of text.normalize("NFKC")) out += map.get(ch) ?? ch;
  return out;
}

/** Case folding, close enough for comparison (`ß` → `ss`, `ſ` → `s`, `ı` → `i`). */
export function fold(text: string): string {
  return text.toUpperCase().toLowerCase();
}

// Characters that show as nothing (default-ignorable code points, the Hangul
// fillers among them, and the braille blank, which is not one).
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\u2800]/gu;
// Blanks at either end of a name: `todo.md ` reads as `todo.md`.
const EDGE_BLANKS = /(?<=^|\/)[\s\u2800]+|[\s\u2800]+(?=\/|$)/gu;

/**
 * The forms under which a path reads as another one: NFKC and case folding, with
 * and without the confusable skeleton (applied before and after folding, since
 * either order catches letters the other misses: Greek Ν folds to ν, which is
 * confusable with v, not n), and without characters that show as nothing.
 */
export function lookalikeKeys(path: string): string[] {
  const n = path.normalize("NFKC").replace(IGNORABLE, "").replace(EDGE_BLANKS, "").replace(/\/{2,}/g, "/");
  return [fold(n), fold(skeleton(n)), fold(skeleton(fold(n)))];
}

/** True when `path` reads as `target` or as something below it (both normalised VFS paths). */
export function looksLikeWithin(path: string, target: string): boolean {
  const want = lookalikeKeys(target);
  return lookalikeKeys(path).some((k, i) => {
    const t = want[i] as string;
    return k === t || k.startsWith(t + "/");
  });
}

/** True when a parent of `path` (or the root) reads as `path` holding `target`: `/.scripts` holds a script. */
export function looksLikeAncestor(path: string, target: string): boolean {
  if (path === "/") return true;
  const want = lookalikeKeys(target);
  return lookalikeKeys(path).some((k, i) => k === "/" || k === "" || (want[i] as string).startsWith(k + "/"));
}
