// @rtc-agent/react: React bindings of the RTC Agent browser SDK (@rtc-agent/web).

export { AgentProvider, useAgent, useAgentContext, useConnection, type AgentHandle } from "./agent.js";
export { useSessions, useSession, useMessages } from "./sessions.js";
export { usePrompts, type ConfirmExtras, type PromptsHandle } from "./prompts.js";
export { useTool, type ReactToolDefinition, type ToolRender, type UseToolOptions } from "./tool.js";
export { AgentChat, type AgentChatProps } from "./chat.js";
export { Markdown, type MarkdownProps } from "./markdown.js";
export { useChat, type ChatHandle, type ChatStatus, type UseChatOptions } from "./use-chat.js";
export { toolState, type ChatMessage, type ToolPart, type ToolState, type UntypedToolPart } from "./messages-view.js";
export type { SessionView } from "./store.js";
