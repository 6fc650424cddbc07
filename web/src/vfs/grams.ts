// A small persisted search index: each file has a Bloom filter of the
// trigrams (three consecutive UTF-16 code units) of its content (store `grams`), written in the
// same transaction as the content. A grep whose pattern requires some literal text
// reads only the files whose filter may contain every trigram of it, so the first
// grep after a page load reads (and sends to the search worker) a few files instead
// of all of them. A filter can only say "maybe" or "certainly not": no file that
// matches is ever skipped.
//
// Letters are folded so one filter serves case-sensitive and case-insensitive
// searches: ASCII A-Z to a-z, and the two non-ASCII letters whose simple case
// folding (RE2's (?i)) reaches an ASCII letter, K (U+212A, Kelvin) to k and ſ
// (U+017F, long s) to s. Queries only hold printable ASCII (see tools/search/literals.ts).

/** Literal strings a match needs: any one group whose strings all occur (OR of ANDs). */
export type GramQuery = { hashes: number[] }[];

const MIN_BITS = 64;

/**
 * One bit per four characters (rounded up to a power of two): 256-512 bytes for a
 * 10 KiB file. Source text has about one distinct trigram per 4-7 characters, so
 * a literal of seven characters passes a filter it is not in rarely (a few in a
 * hundred at most); larger filters cost more to read than the files they spare.
 */
function filterBits(length: number): number {
  let bits = MIN_BITS;
  while (bits < length / 4) bits *= 2;
  return bits;
}

function fold(c: number): number {
  if (c >= 0x41 && c <= 0x5a) return c + 0x20;
  if (c === 0x212a) return 0x6b;
  if (c === 0x17f) return 0x73;
  return c;
}

function hash3(a: number, b: number, c: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/**
 * The trigram filter of `content` (stored on its node): eight bits per character
 * of a one-byte string, which IndexedDB reads back far faster than a typed array
 * per node.
 */
export function gramFilter(content: string): string {
  const bits = filterBits(content.length);
  const filter = new Uint8Array(bits / 8);
  const mask = bits - 1;
  if (content.length < 3) return bytesToString(filter);
  let a = fold(content.charCodeAt(0));
  let b = fold(content.charCodeAt(1));
  for (let i = 2; i < content.length; i++) {
    const c = fold(content.charCodeAt(i));
    const bit = hash3(a, b, c) & mask;
    filter[bit >>> 3]! |= 1 << (bit & 7);
    a = b;
    b = c;
  }
  return bytesToString(filter);
}

function bytesToString(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 4096) s += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return s;
}

/**
 * Compiles literal groups (each string at least three characters, see
 * tools/search/literals.ts) into the hashes a filter is tested with.
 */
export function gramQuery(groups: string[][]): GramQuery {
  return groups.map((group) => {
    const hashes = new Set<number>();
    for (const s of group) {
      for (let i = 2; i < s.length; i++) hashes.add(hash3(fold(s.charCodeAt(i - 2)), fold(s.charCodeAt(i - 1)), fold(s.charCodeAt(i))));
    }
    return { hashes: [...hashes] };
  });
}

/** False only when the content the filter was made from cannot match `query`. */
export function mayContain(filter: string | undefined, query: GramQuery): boolean {
  // No filter (not written by this version): it may contain anything.
  if (typeof filter !== "string" || filter.length === 0 || (filter.length & (filter.length - 1)) !== 0) return true;
  const mask = filter.length * 8 - 1;
  for (const { hashes } of query) {
    let all = true;
    for (const h of hashes) {
      const bit = h & mask;
      if ((filter.charCodeAt(bit >>> 3) & (1 << (bit & 7))) === 0) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}
