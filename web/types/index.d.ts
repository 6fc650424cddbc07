export * from "./vfs/index.js";
export * from "./tools/index.js";
export * from "./script/index.js";
export { createAgent, Agent, subjectOf } from "./agent/agent.js";
export type { AgentEvents, AgentOptions, SendOptions, AskAnswer, Prompt, PromptAnswer } from "./agent/types.js";
export { ReloginRequired, type ConnectionState, type ConnectionStatus, type ConnectionProblem, type ConnectionProblemKind } from "./realtime/connection.js";
export type { EntityChange, EntityKind } from "./realtime/entities.js";
export * from "./protocol/types.js";
export { renderMarkdown } from "./ui/markdown.js";
export { RtcAgentElement, defineElement } from "./ui/element.js";
/** SDK version, injected at build time from package.json. */
export declare const VERSION: string;
