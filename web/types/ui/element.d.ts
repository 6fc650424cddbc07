import { type Agent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/types.js";
import type { HostToolDefinition } from "../tools/registry.js";
/** Base class that works where HTMLElement does not exist (SSR, workers): never defined there. */
declare const Base: typeof HTMLElement;
export declare class RtcAgentElement extends Base {
    static observedAttributes: string[];
    private optionsValue;
    private waitingForParse;
    private tokenFn;
    private agentValue;
    private starting;
    private readonly pendingTools;
    private ui;
    private teardown;
    private readyWaiters;
    /** Extra createAgent options (tools, scriptTimeoutMs, locks, …), read when the agent starts. */
    get options(): Partial<AgentOptions>;
    set options(v: Partial<AgentOptions>);
    /** The headless agent behind the UI (null until started). */
    get agent(): Agent | null;
    get getToken(): AgentOptions["getToken"] | null;
    set getToken(fn: AgentOptions["getToken"] | null);
    /** Resolves with the agent once it is created. */
    whenReady(): Promise<Agent>;
    /** Registers a host tool now or, before the agent exists, when it starts. */
    registerTool(def: HostToolDefinition): void;
    /** Puts text into the composer; `send` sends it, `newSession` starts a new conversation. */
    prefill(text: string, opts?: {
        send?: boolean;
        newSession?: boolean;
    }): void;
    connectedCallback(): void;
    disconnectedCallback(): void;
    attributeChangedCallback(): void;
    private tokenSource;
    private serverUrl;
    private start;
}
/** Defines <rtc-agent> (once). Called on import of the SDK in a browser. */
export declare function defineElement(name?: string): void;
declare global {
    interface HTMLElementTagNameMap {
        "rtc-agent": RtcAgentElement;
    }
}
export {};
