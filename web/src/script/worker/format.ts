// Turning QuickJS stack traces into the script's own line numbers.

/**
 * Keeps the frames of the script itself (QuickJS writes `at f (script:3:7)`),
 * renumbered to the script's lines (`lineOffset` lines of wrapper precede it), so
 * the model sees "script:2:7" for its own second line.
 */
export function scriptStack(stack: string | undefined, file: string, lineOffset: number): string | undefined {
  if (typeof stack !== "string") return undefined;
  const frames = stack
    .split("\n")
    .filter((l) => l.includes(`(${file}:`) || l.trim().startsWith(`at ${file}:`))
    .map((l) => l.replace(new RegExp(`${file}:(\\d+)`), (_m, n: string) => `${file}:${Math.max(1, Number(n) - lineOffset)}`).trim());
  return frames.length > 0 ? frames.slice(0, 10).join("\n") : undefined;
}
