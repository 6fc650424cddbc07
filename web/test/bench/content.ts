// The texts the benchmark streams: a long answer as models write them (prose,
// lists, tables, code, links), and inputs that are pathological for a parser.
// The long answers link with [text](url) only, a form every renderer version
// handled, so figures before and after a renderer change compare the same work.

/** A realistic answer of about `bytes` bytes, built from repeating sections. */
export function longAnswer(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 1; n < bytes; i++) {
    const s = section(i);
    parts.push(s);
    n += s.length;
  }
  return parts.join("").slice(0, bytes);
}

function section(i: number): string {
  return `## Step ${i}: reading the data

The file \`/data/report-${i}.csv\` holds **${i * 17} rows**; see [the docs](https://example.com/docs/step-${i}) and
the [format notes](https://en.wikipedia.org/wiki/Comma-separated_values) for *details*. A few
points worth knowing before we go on, with ~~old~~ new figures:

- the first column is the date (ISO 8601), e.g. \`2024-0${(i % 9) + 1}-01\`
- amounts are in cents, so divide by 100
  - negative amounts are refunds
- mail <ops@example.com> when a row looks wrong

| name | rows | share |
|------|-----:|:-----:|
| north | ${i * 3} | 12 % |
| south | ${i * 5} | 30 % |

\`\`\`ts
export function total(rows: Row[]): number {
  return rows.reduce((sum, r) => sum + r.amount / 100, 0); // step ${i}
}
\`\`\`

> Note: the totals above are rounded to whole euros.

`;
}

/**
 * One paragraph of about `bytes` bytes: sentences with inline markup (strong,
 * emphasis, code, links, autolinks) and soft line breaks, never a blank line.
 */
export function longParagraph(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 1; n < bytes; i++) {
    const s = `Row ${i} of \`/data/report.csv\` holds **${i * 17} cents**, see [note ${i}](https://example.com/notes/${i}) and *the totals* at https://example.com/t/${i} for ~~old~~ new figures.${i % 4 === 0 ? "\n" : " "}`;
    parts.push(s);
    n += s.length;
  }
  return parts.join("").slice(0, bytes);
}

/** `**a ` repeated to `bytes` bytes: thousands of unmatched emphasis openers. */
export function strongRun(bytes: number): string {
  return "**a ".repeat(Math.ceil(bytes / 4)).slice(0, bytes);
}

/** `n` nested `[`, then as many `](x)` (unbalanced link brackets). */
export function nestedBrackets(n: number): string {
  return "[".repeat(n) + "a" + "](https://e.example/)".repeat(Math.min(n, 50));
}

/** One URL of `n` characters in a sentence. */
export function longUrl(n: number): string {
  const base = "https://example.com/";
  return `see ${base}${"a/b-c_d.e".repeat(Math.ceil((n - base.length) / 9)).slice(0, n - base.length)} for more`;
}

/** A stored conversation message of about 1 KB. */
export function storedAnswer(i: number): string {
  return `Answer ${i}: the **result** is in \`/out/${i}.txt\`, see [the run](https://example.com/r/${i}).

- one item with *emphasis*
- another with a [link](https://example.com/${i})

\`\`\`js
console.log(${i});
\`\`\`
${"Some more words of prose to make the message a realistic size. ".repeat(10)}`;
}

/** Splits `text` into `n` deltas of nearly equal size. */
export function split(text: string, n: number): string[] {
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
