/** What happened to an entry. A rename is one event carrying both paths. */
export type VfsChangeKind = "create" | "update" | "delete" | "rename";
/** A committed change, delivered after the IndexedDB transaction completed. */
export interface VfsChangeEvent {
    kind: VfsChangeKind;
    /** The entry's path after the change (for `delete`, the removed path). */
    path: string;
    /** For `rename`: the path before the move. */
    oldPath?: string;
    type: "file" | "dir";
    /** False when the change was made by another tab of the same namespace. */
    local: boolean;
}
export type VfsChangeListener = (event: VfsChangeEvent) => void;
/**
 * Fans change events out to listeners in this tab and, through a BroadcastChannel
 * named after the database, to other tabs of the same origin and namespace, so a
 * file explorer in a tab that does not execute tools still refreshes.
 */
export declare class ChangeHub {
    private readonly listeners;
    private readonly channel;
    constructor(channelName: string);
    subscribe(listener: VfsChangeListener): () => void;
    emit(events: Omit<VfsChangeEvent, "local">[]): void;
    close(): void;
    private dispatch;
}
