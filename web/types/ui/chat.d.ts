import type { Agent } from "../agent/agent.js";
export interface ChatActions {
    /** Shows another session (a fork's). */
    select: (sessionId: string) => void;
    /** Tells the person that something failed. */
    report: (message: string) => void;
}
export declare class ChatView {
    private readonly agent;
    private readonly actions;
    readonly root: HTMLDivElement;
    private sessionId;
    private readonly nodes;
    private readonly forms;
    private readonly tail;
    private readonly endLine;
    private endKey;
    private error;
    /** The user message being edited into a fork, and its form. */
    private forking;
    /** Turns whose retry was asked for: the button stays disabled meanwhile. */
    private readonly retrying;
    /** The RTCs of the shown session by message and call, rebuilt when the store's list changes. */
    private rtcList;
    private rtcMap;
    constructor(agent: Agent, actions?: ChatActions);
    show(sessionId: string | null): void;
    update(): void;
    private workingText;
    /**
     * The turn a Retry button is offered for: the session's latest turn, when it
     * failed with a retryable error or was stopped, nothing runs, the session is
     * open and this device owns it.
     */
    private retryable;
    private retryButton;
    private turnEnd;
    private rtcsByCall;
    /** Shows an assistant message's current text (the Live text while it streams). */
    private syncBody;
    /** A message that could not be shown: its raw text and a notice, so later updates go on. */
    private failed;
    private keyOf;
    private render;
    private userMessage;
    /** A compaction summary: collapsed, the messages it stands for stay above it. */
    private summary;
    /**
     * How many messages a summary stands in for (protocol: the turns before the
     * turn of message `summary_of_seq`, and that turn's messages up to it).
     */
    private replacedBy;
    private startFork;
    private formFor;
}
