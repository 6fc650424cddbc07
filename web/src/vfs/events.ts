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
export class ChangeHub {
  private readonly listeners = new Set<VfsChangeListener>();
  private readonly channel: BroadcastChannel | null;

  constructor(channelName: string) {
    this.channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(channelName) : null;
    if (this.channel) {
      this.channel.onmessage = (e: MessageEvent) => {
        const ev = parseRemote(e.data);
        if (ev) this.dispatch(ev);
      };
    }
  }

  subscribe(listener: VfsChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(events: Omit<VfsChangeEvent, "local">[]): void {
    for (const ev of events) {
      this.dispatch({ ...ev, local: true });
      this.channel?.postMessage(ev);
    }
  }

  close(): void {
    this.listeners.clear();
    this.channel?.close();
  }

  private dispatch(ev: VfsChangeEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch (err) {
        // A broken listener must not stop the others nor fail the write that caused it.
        console.error("rtc-agent: VFS change listener failed", err);
      }
    }
  }
}

function parseRemote(data: unknown): VfsChangeEvent | null {
  if (typeof data !== "object" || data === null) return null;
  const d = data as Record<string, unknown>;
  const kinds = ["create", "update", "delete", "rename"];
  if (typeof d.path !== "string" || typeof d.kind !== "string" || !kinds.includes(d.kind)) return null;
  if (d.type !== "file" && d.type !== "dir") return null;
  const ev: VfsChangeEvent = { kind: d.kind as VfsChangeKind, path: d.path, type: d.type, local: false };
  if (typeof d.oldPath === "string") ev.oldPath = d.oldPath;
  return ev;
}
