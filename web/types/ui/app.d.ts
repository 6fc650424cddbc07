import type { Agent } from "../agent/agent.js";
/** The wiring of the views inside the shadow root. */
export declare class Ui {
    private readonly root;
    private agent;
    private chat;
    private sessions;
    private files;
    private selected;
    private selectedKey;
    private timer;
    private readonly offs;
    private readonly bannerEl;
    /** The prompt a "… is waiting for your answer" banner points to (null: the banner shows something else). */
    private promptNotice;
    private readonly conn;
    /** Why the connection fails, when a person can do something about it (or should know). */
    private readonly connBanner;
    private connTicker;
    private readonly modeScope;
    private readonly mode;
    private readonly modeLabel;
    private narrow;
    private drawerOpen;
    private sidebarShown;
    private resize;
    private readonly input;
    private readonly sendBtn;
    private readonly stopBtn;
    private readonly title;
    private readonly sessionsToggle;
    private readonly filesToggle;
    private readonly usage;
    private readonly closeBtn;
    private readonly reopenBtn;
    private readonly closedBar;
    private readonly body;
    private readonly main;
    private readonly app;
    constructor(root: ShadowRoot);
    attach(agent: Agent, title: string): void;
    prefill(text: string, opts: {
        send?: boolean;
        newSession?: boolean;
    }): void;
    dispose(): void;
    banner(text: string, bad?: boolean): void;
    private select;
    private schedule;
    private render;
    /** "… is waiting for your answer" while a prompt of another conversation is open, and only then. */
    private promptBanner;
    /** The header's connection state ("Offline, retrying in 4 s") and the banner naming the cause. */
    private showStatus;
    private setNarrow;
    /** Opens or closes the session list: the drawer when narrow, the sidebar otherwise. */
    private setDrawer;
    private layoutSessions;
    private send;
    /** `/compact [instruction]`: a summary of the selected conversation. */
    private compact;
    private setClosed;
    private changeMode;
    private autosize;
}
