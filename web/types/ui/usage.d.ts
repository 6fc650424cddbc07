import type { Session } from "../protocol/types.js";
/** 950, 12.3k, 1.2M */
export declare function formatTokens(n: number): string;
/** $0.0042, $1.23; amounts below a hundredth of a cent as <$0.0001. */
export declare function formatCost(usd: number): string;
export interface UsageLine {
    /** e.g. "12.3k in · 1.2k out · $0.0123 · context 4.5k" */
    text: string;
    /** The exact figures. */
    title: string;
}
/** The session's usage for the header, or null before its first model call. */
export declare function sessionUsage(s: Session | undefined): UsageLine | null;
