// What the person sees about the browser's storage: the banner when a write
// failed (what was not saved, that nothing is lost for now, and where to free
// space), and the Files panel's "used / quota" line.

import { StorageError } from "../state/storage-error.js";
import { h } from "./dom.js";

export function isStorageError(err: unknown): err is StorageError {
  return err instanceof StorageError;
}

/** The banner's content for a failed write; `openFiles` shows the Files panel. */
export function storageNotice(err: StorageError, openFiles: () => void): HTMLElement[] {
  const head = err.quota ? "This browser's storage for the assistant is full" : `This browser could not save data (${err.message})`;
  return [
    h(
      "span",
      null,
      // Not only `err.what`: the next failure may be of another kind, and the banner stays.
      `${head}: tool results and conversation history are kept in memory and still sent to the server, but a reload may lose what is not saved yet, and files cannot be written. ` +
        "Free space by deleting large files in the Files panel (or other data of this site).",
    ),
    h("button", { class: "open-files", props: { type: "button" }, on: { click: openFiles } }, "Open Files"),
  ];
}

/** "Storage: 1.2 MB used of 4.0 GB" from navigator.storage.estimate(); "" where the browser has none. */
export async function storageLine(): Promise<string> {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.estimate !== "function") return "";
  try {
    const { usage, quota } = await storage.estimate();
    if (usage === undefined || quota === undefined) return "";
    const kept = typeof storage.persisted === "function" && (await storage.persisted()) ? "kept by the browser" : "may be cleared by the browser under storage pressure";
    return `Storage: ${size(usage)} used of ${size(quota)} (${kept})`;
  } catch {
    return "";
  }
}

function size(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let n = bytes;
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${n.toFixed(1)} ${units[i]}`;
}
