// Public entry of the RTC Agent browser SDK (bundled to dist/rtc-agent.js).
// Stage 1: the virtual file system, the built-in tools and the script sandbox.
// The realtime client and the <rtc-agent> element will build on these exports.

export * from "./vfs/index.js";
export * from "./tools/index.js";
export * from "./script/index.js";

/** SDK version, injected at build time from package.json. */
export const VERSION: string = __RTC_AGENT_VERSION__;
