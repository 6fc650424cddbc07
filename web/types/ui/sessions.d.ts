import type { Agent } from "../agent/agent.js";
export declare class SessionsView {
    private readonly agent;
    private readonly select;
    private readonly report;
    readonly list: HTMLUListElement;
    readonly root: HTMLElement;
    private editing;
    private armed;
    private selected;
    private readonly items;
    constructor(agent: Agent, select: (id: string | null) => void, report: (message: string) => void);
    update(selected: string | null): void;
    private item;
    private startRename;
    private delete;
}
