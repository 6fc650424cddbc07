// Token and cost figures for people: short in the header, exact in its tooltip.

import type { Session } from "../protocol/types.js";

/** 950, 12.3k, 1.2M */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "0";
  if (n < 1000) return String(Math.round(n));
  if (n < 999_500) return `${trim(n / 1000)}k`;
  return `${trim(n / 1_000_000)}M`;
}

function trim(v: number): string {
  return (v < 100 ? v.toFixed(1) : v.toFixed(0)).replace(/\.0$/, "");
}

/** $0.0042, $1.23; amounts below a hundredth of a cent as <$0.0001. */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return "$0";
  if (usd < 0.0001) return "<$0.0001";
  if (usd < 1) return `$${usd.toFixed(4).replace(/0+$/, "").replace(/\.$/, "")}`;
  return `$${usd.toFixed(2)}`;
}

export interface UsageLine {
  /** e.g. "12.3k in · 1.2k out · $0.0123 · context 4.5k" */
  text: string;
  /** The exact figures. */
  title: string;
}

/** The session's usage for the header, or null before its first model call. */
export function sessionUsage(s: Session | undefined): UsageLine | null {
  if (!s) return null;
  const u = s.usage;
  const input = u?.input_tokens ?? 0;
  const output = u?.output_tokens ?? 0;
  const context = s.context_tokens ?? 0;
  if (!input && !output && !context) return null;
  const exact = (n: number) => n.toLocaleString("en-US");
  const parts = [`${formatTokens(input)} in`, `${formatTokens(output)} out`];
  const title = [`Tokens of this conversation: ${exact(input)} in, ${exact(output)} out.`];
  if (typeof u?.cost_usd === "number") {
    parts.push(formatCost(u.cost_usd));
    title.push(`Cost: $${u.cost_usd.toFixed(6)}.`);
  } else {
    title.push("Cost: unknown for this model.");
  }
  if (context) {
    parts.push(`context ${formatTokens(context)}`);
    title.push(`Context: ${exact(context)} tokens in the latest model call.`);
  }
  return { text: parts.join(" · "), title: title.join(" ") };
}
