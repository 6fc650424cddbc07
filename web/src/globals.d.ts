/** Replaced by build.mjs (esbuild `define`). */
declare const __RTC_AGENT_VERSION__: string;
