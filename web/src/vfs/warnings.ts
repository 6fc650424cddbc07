// Why a path may not read as what it is, in plain words for a confirmation: it is
// too long to read at a glance, a name mixes scripts (a Cyrillic А among Latin
// letters), or it holds characters that show as nothing or as a plain space. A
// confirmation shows these warnings and never offers "Allow for this chat" for
// such a path.

/**
 * A path longer than this (in characters) is flagged: a longer one no longer
 * fits a confirmation's line or two, and the part that matters can hide in it.
 */
export const LONG_PATH_CHARS = 160;

// Scripts told apart by name; letters of any other script count as "another
// script". Common (digits, punctuation) and Inherited (combining marks) belong
// to every script.
const SCRIPTS: readonly [string, RegExp][] = [
  ["Latin", /\p{Script=Latin}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Georgian", /\p{Script=Georgian}/u],
  ["Cherokee", /\p{Script=Cherokee}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["Han", /\p{Script=Han}/u],
  ["Hiragana", /\p{Script=Hiragana}/u],
  ["Katakana", /\p{Script=Katakana}/u],
  ["Hangul", /\p{Script=Hangul}/u],
  ["Bopomofo", /\p{Script=Bopomofo}/u],
];
const SHARED = /[\p{Script=Common}\p{Script=Inherited}]/u;
// Words of a name: runs between digits, punctuation and spaces (script Common).
// Scripts are compared within a word, so `отчёт.pdf` (a Cyrillic name, a Latin
// extension) reads plainly while `АGENT.md` (a Cyrillic А in a Latin word) does not.
const WORD_BREAKS = /\p{Script=Common}+/u;
// UTS #39's "highly restrictive" level: one script, or Latin with the scripts
// Japanese, Chinese and Korean are written in together.
const ALLOWED_MIXES: readonly ReadonlySet<string>[] = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];
// Shows as nothing (default-ignorable code points, which include the Hangul
// fillers U+115F, U+1160, U+3164 and U+FFA0; the braille blank U+2800) or as a
// space that is not one (no-break and other Unicode spaces).
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u2800]|(?! )\s/u;

/** The scripts of a word's letters, when they mix in a way UTS #39 does not allow. */
export function mixedScripts(word: string): string[] | null {
  const found = new Set<string>();
  for (const ch of word) {
    if (SHARED.test(ch)) continue;
    found.add(SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? "another script");
  }
  if (found.size <= 1) return null;
  if (ALLOWED_MIXES.some((mix) => [...found].every((s) => mix.has(s)))) return null;
  return [...found];
}

/** Plain warnings about a path (raw, as the call gives it); empty when it reads as what it is. */
export function pathWarnings(path: string): string[] {
  const out: string[] = [];
  const chars = [...path].length;
  if (chars > LONG_PATH_CHARS) out.push(`This path is ${chars} characters long. Read it whole before you allow.`);
  const mixed = path
    .split(WORD_BREAKS)
    .map(mixedScripts)
    .find((m) => m !== null);
  if (mixed) {
    out.push(`A name in this path mixes ${mixed.join(" and ")} letters in one word, so it can look like another name (a Cyrillic А looks like a Latin A).`);
  }
  if (INVISIBLE.test(path) || /(^|\/) | (\/|$)/.test(path)) {
    out.push("This path holds characters that show as nothing or as a space (written as \\u codes here), so it can look like another path.");
  }
  return out;
}
