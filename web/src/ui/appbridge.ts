// The host side of one tool view (MCP Apps), loaded only when a chat shows
// one: the ext-apps AppBridge over postMessage to the view's frame.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";

/** Bounds what a view's message may hold before the page looks at it (the page's own limit is lower). */
const MAX_PARTS = 16;
const MAX_PART = 32_000;

/** What the view's frame asks of the page. */
export interface BridgeHandlers {
  /** The view finished its start (again after a reload of its frame): send it the call. */
  initialized: () => void;
  /** The view's content is this high, in CSS pixels. */
  size: (height: number) => void;
  /** The view asks to open a URL: true once the person opened it. */
  openLink: (url: string) => Promise<boolean>;
  /** The view asks to send a user message (its text blocks): true once the person sent it. */
  message: (text: string) => Promise<boolean>;
  /**
   * The view calls a tool of its own MCP server (`tools/call`): the call's
   * result once it ended (a tool's error, or the person's refusal, as an
   * error result); throws when the call was refused before it was made.
   */
  callTool: (name: string, args: Record<string, unknown>) => Promise<ToolResult>;
  /** The view's context for the model (its text blocks, then its structured content as JSON): false when it is too large to keep. */
  context: (text: string) => boolean;
  /** The view reads a resource of its own MCP server (`resources/read`); throws when the server refused. */
  readResource: (uri: string) => Promise<ResourceResult>;
  /** The view asks to be shown in another way (`ui/request-display-mode`): the mode it is shown in once the person answered. */
  displayMode: (mode: string) => Promise<DisplayMode>;
}

/** How a view is shown: in its card, or over the whole chat. */
export type DisplayMode = "inline" | "fullscreen" | "pip";

export type ResourceResult = { contents: ({ uri: string; mimeType?: string } & ({ text: string } | { blob: string }))[] };

export type ToolResult = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** The page's end of one view's conversation. */
export interface Bridge {
  input(args: Record<string, unknown>): void;
  result(r: ToolResult): void;
  cancelled(reason: string): void;
  /** Tells the view the mode it is shown in now (the person changed it). */
  displayMode(mode: DisplayMode): void;
  close(): void;
}

/**
 * Connects to the frame's window before the view is loaded into it (so its
 * first message is heard). The host offers opening links and sending text
 * messages, each done by the page only once the person says so, and calls of
 * its server's tools (`serverTools`), which the server runs under the same
 * rules as the model's calls, and its context for the model
 * (`updateModelContext`, text), which goes with the person's next message in
 * the chat, and reads of its server's resources (`serverResources`), which
 * the server makes for it. It may ask to be shown over the whole chat
 * (`fullscreen`), to float in a corner of the chat (`pip`), and back
 * (`inline`).
 */
export async function connect(win: Window, name: string, context: McpUiHostContext, on: BridgeHandlers): Promise<Bridge> {
  const bridge = new AppBridge(null, { name, version: "1" }, { openLinks: {}, message: { text: {} }, serverTools: {}, serverResources: {}, updateModelContext: { text: {} } }, { hostContext: context });
  bridge.oninitialized = () => on.initialized();
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && Number.isFinite(height)) on.size(height);
  };
  bridge.onopenlink = async ({ url }) => ((await on.openLink(url)) ? {} : { isError: true });
  bridge.onmessage = async ({ content }) => {
    // Text only (what the host offers), in a few bounded parts; anything else is refused.
    if (content.length === 0 || content.length > MAX_PARTS) return { isError: true };
    const texts: string[] = [];
    for (const c of content) {
      if (c.type !== "text" || c.text.length > MAX_PART) return { isError: true };
      texts.push(c.text);
    }
    return (await on.message(texts.join("\n"))) ? {} : { isError: true };
  };
  bridge.onupdatemodelcontext = async ({ content, structuredContent }) => {
    // Text blocks only (what the host offers), then the structured content.
    const texts: string[] = [];
    for (const c of content ?? []) {
      if (c.type !== "text") throw new Error("a view's context may hold text only");
      texts.push(c.text);
    }
    if (structuredContent !== undefined) texts.push(JSON.stringify(structuredContent));
    if (!on.context(texts.join("\n"))) throw new Error("the context was not kept: it is larger than 16 KiB, or the view was closed");
    return {};
  };
  bridge.onreadresource = async ({ uri }) => {
    if (typeof uri !== "string" || !uri) throw new Error("a resource read needs its URI");
    return on.readResource(uri);
  };
  // The bridge's own copy of the host context learns the mode too, so the
  // view is told of each change, the one it asked for included.
  let shown = context;
  const setMode = (mode: DisplayMode) => {
    shown = { ...shown, displayMode: mode };
    bridge.setHostContext(shown);
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    const now = await on.displayMode(mode);
    setMode(now);
    return { mode: now };
  };
  bridge.oncalltool = async (params) => {
    const args: unknown = params.arguments ?? {};
    if (typeof params.name !== "string" || typeof args !== "object" || args === null || Array.isArray(args)) throw new Error("a tool call needs a tool name and an object of arguments");
    return on.callTool(params.name, args as Record<string, unknown>);
  };
  await bridge.connect(new PostMessageTransport(win, win));
  const quiet = (p: Promise<unknown>) => void p.catch(() => undefined);
  return {
    input: (args) => quiet(bridge.sendToolInput({ arguments: args })),
    result: (r) => quiet(bridge.sendToolResult(r)),
    cancelled: (reason) => quiet(bridge.sendToolCancelled({ reason })),
    displayMode: setMode,
    close: () => quiet(bridge.close()),
  };
}
