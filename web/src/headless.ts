// The headless entry (`@rtc-agent/web/headless`, dist/rtc-agent-headless.js): the
// agent without any UI. Importing it defines no element and has no other effect,
// so a bundler drops what a host does not use.

export { createAgent, withToolTypes } from "./agent/agent.js";
export { toolState, type ToolState } from "./agent/toolstate.js";
export type {
  Agent,
  AgentEvents,
  AgentEventSource,
  AgentOptions,
  AgentStats,
  AgentTools,
  AskAnswer,
  CallParams,
  EntityView,
  Position,
  Prompt,
  PromptAnswer,
  SendOptions,
} from "./agent/types.js";
export type { Methods, MethodName, MethodParams, MethodResult, PageParams } from "./protocol/methods.js";
export type { AskOption, AskQuestion } from "./executor/ask.js";
export { ReloginRequired, type ConnectionState, type ConnectionStatus, type ConnectionProblem, type ConnectionProblemKind } from "./realtime/connection.js";
export type { EntityChange, EntityKind } from "./realtime/entities.js";
export type { WritingCall } from "./realtime/writing.js";
export { RpcError, WORK_MODES } from "./protocol/types.js";
export type {
  CallDelta,
  Delta,
  ErrorCode,
  HostToolSpec,
  Message,
  MessageContext,
  MessageGetResult,
  MessageListResult,
  MessageSendResult,
  MessageStatus,
  Rtc,
  RtcProgress,
  Decision,
  ToolApproval,
  RtcListResult,
  RtcResult,
  RtcStatus,
  Session,
  SessionListResult,
  SessionResult,
  ToolCall,
  Turn,
  TurnError,
  TurnListResult,
  TurnQueuedResult,
  TurnResult,
  TurnStatus,
  Update,
  UpdateChange,
  UpdateListResult,
  UpdateType,
  Usage,
  WorkMode,
} from "./protocol/types.js";
export { defineTool } from "./tools/typed.js";
export type {
  AnyHostTool,
  BuiltinToolName,
  HostToolCall,
  HostToolDefinition,
  HostTools,
  InferToolTypes,
  NeedsApproval,
  OtherToolName,
  RtcOf,
  ToolArgs,
  ToolParameters,
  ToolTypes,
  ToolView,
} from "./tools/typed.js";
export type { JsonSchema, ToolKind, ToolSpec } from "./tools/types.js";
export { VfsError, type VfsErrorCode } from "./vfs/errors.js";
export type { VfsChangeEvent, VfsChangeKind, VfsChangeListener } from "./vfs/events.js";
export type { VirtualFS, VfsFile, VfsStat, VfsUsage, WriteResult } from "./vfs/vfs.js";

/** SDK version, injected at build time from package.json. */
export const VERSION: string = __RTC_AGENT_VERSION__;
