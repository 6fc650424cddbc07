// Shared state of the browser suite. The SDK's internals (./sdk.ts, bundled by
// test/run.mjs) are loaded from another origin next to the built sandbox.html
// (/sdk/rtc-agent-internal.js), as the server ships the SDK, so the tests
// exercise the default sandbox URL and the production headers.

import type * as Sdk from "./sdk.js";

export type SdkModule = typeof Sdk;

interface Context {
  sdk: SdkModule;
  /** Origin serving /sdk/ (and the sandbox): http://127.0.0.1:<port>. */
  sdkOrigin: string;
}

export const ctx = {} as Context;

export async function loadSdk(): Promise<void> {
  const params = new URLSearchParams(location.search);
  ctx.sdkOrigin = params.get("sdkOrigin") ?? location.origin;
  ctx.sdk = (await import(/* runtime URL */ `${ctx.sdkOrigin}/sdk/rtc-agent-internal.js`)) as SdkModule;
}

let counter = 0;
const opened: Sdk.VirtualFS[] = [];

/** A VFS in a fresh namespace (new device id), closed and deleted by cleanup(). */
export async function freshVfs(limits: { maxFileBytes?: number; maxTotalBytes?: number } = {}): Promise<Sdk.VirtualFS> {
  const vfs = await ctx.sdk.VirtualFS.open({ userId: "test-user", deviceId: `dev-${Date.now()}-${counter++}`, ...limits });
  opened.push(vfs);
  return vfs;
}

export async function cleanup(): Promise<void> {
  for (const vfs of opened.splice(0)) {
    vfs.close();
    await new Promise<void>((resolve) => {
      const req = indexedDB.deleteDatabase(vfs.databaseName);
      req.onsuccess = req.onerror = req.onblocked = () => resolve();
    });
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
