// The v1 methods of docs/protocol.md ("Methods") with their params and results,
// so that a call names an existing method and passes what it takes: a misspelt
// method name or a wrong parameter does not compile.

import type {
  AuditListResult,
  HostToolSpec,
  MessageContext,
  MessageGetResult,
  MessageListResult,
  MessageSendResult,
  RtcExecution,
  RtcListResult,
  RtcResult,
  Rtc,
  SessionListResult,
  SessionResult,
  TurnListResult,
  TurnQueuedResult,
  TurnResult,
  UpdateListResult,
  WorkMode,
} from "./types.js";

/** Paging of the list methods. */
export interface PageParams {
  cursor?: string;
  limit?: number;
}

/** Method name → params and result, as on the wire. */
export interface Methods {
  "v1.message.send": {
    params: {
      client_id: string; session_id?: string; content: { text: string }; work_mode?: WorkMode; tools?: HostToolSpec[];
      /** Offer the model only `tools` and the server's MCP tools, none of the built-in browser tools. */
      host_tools_only?: boolean;
      context?: MessageContext;
    };
    result: MessageSendResult;
  };
  "v1.message.list": { params: { session_id: string } & PageParams; result: MessageListResult };
  "v1.message.get": { params: { message_id: string }; result: MessageGetResult };
  "v1.session.list": { params: PageParams; result: SessionListResult };
  "v1.session.get": { params: { session_id: string }; result: SessionResult };
  "v1.session.update": { params: { session_id: string; title?: string; work_mode?: WorkMode; revoke_approvals?: string[] }; result: SessionResult };
  "v1.session.close": { params: { session_id: string }; result: SessionResult };
  "v1.session.open": { params: { session_id: string }; result: SessionResult };
  "v1.session.delete": { params: { session_id: string }; result: SessionResult };
  "v1.session.fork": { params: { client_id: string; session_id: string; message_id: string; text?: string }; result: MessageSendResult };
  "v1.session.move": { params: { session_id: string }; result: SessionResult };
  "v1.session.compact": { params: { session_id: string; instruction?: string }; result: TurnQueuedResult };
  "v1.turn.stop": { params: { session_id: string }; result: TurnResult };
  "v1.turn.retry": { params: { session_id: string; turn_id: string; client_id: string }; result: TurnQueuedResult };
  "v1.turn.list": { params: { session_id: string } & PageParams; result: TurnListResult };
  "v1.turn.get": { params: { turn_id: string }; result: TurnResult };
  "v1.rtc.update_status": {
    params: { rtc_id: string; status: "sent" | "executing" | "rejected"; client_id: string; reason?: string; approval?: { scope?: "once" | "session"; standing?: boolean; reason?: string } };
    result: RtcResult;
  };
  "v1.rtc.submit_result": {
    params: { rtc_id: string; client_id: string; ok: boolean; output?: unknown; error?: string; execution?: RtcExecution };
    result: RtcResult;
  };
  "v1.rtc.list": { params: { session_id: string } & PageParams; result: RtcListResult };
  "v1.rtc.get": { params: { rtc_id: string }; result: RtcResult };
  "v1.rtc.pending": { params: Record<string, never>; result: { rtcs: Rtc[]; offset: number } };
  "v1.audit.list": { params: { session_id?: string; since?: string } & PageParams; result: AuditListResult };
  /** The person approved a call the server executes (an MCP server's tool); scope `session` = "Allow for this chat". */
  "v1.rtc.approve": { params: { rtc_id: string; client_id: string; approval?: { scope: "once" | "session" } }; result: RtcResult };
  /** A tool's view calls a tool of its own MCP server (bare name) for the call whose card shows it; the RTC runs like the model's calls. */
  "v1.app.call": { params: { rtc_id: string; tool: string; arguments?: Record<string, unknown>; client_id: string }; result: RtcResult };
  /** A tool's view reads a resource of its own MCP server for the call whose card shows it. */
  "v1.app.resource": { params: { rtc_id: string; uri: string }; result: { contents: AppResourceContent[] } };
  "v1.update.list": { params: { since_offset: number; epoch?: string; limit?: number }; result: UpdateListResult };
}

/** One content of a resource a view read: text, or a blob in base64. */
export interface AppResourceContent {
  uri: string;
  mime_type?: string;
  text?: string;
  blob?: string;
}

/** A v1 method name. */
export type MethodName = keyof Methods;
/** What a method takes. */
export type MethodParams<M extends MethodName> = Methods[M]["params"];
/** What a method answers. */
export type MethodResult<M extends MethodName> = Methods[M]["result"];
