import type { ToolSpec } from "./types.js";
/**
 * `askUser` is answered by the user, not by code: the UI shows the questions and
 * submits the answers, so the registry holds only its spec.
 */
export declare const askUserSpec: ToolSpec;
