import { type VirtualFS } from "../vfs/index.js";
export declare class FilesView {
    private readonly vfs;
    readonly root: HTMLElement;
    private readonly tree;
    private readonly editor;
    private readonly text;
    private readonly pathLabel;
    private readonly status;
    private open;
    private timer;
    private readonly off;
    private visible;
    constructor(vfs: VirtualFS);
    setVisible(v: boolean): void;
    dispose(): void;
    private schedule;
    refresh(): Promise<void>;
    view(path: string): Promise<void>;
    /** The open file changed elsewhere: reload it unless the person has edits. */
    private syncOpen;
    private save;
    private remove;
    private close;
    private create;
}
