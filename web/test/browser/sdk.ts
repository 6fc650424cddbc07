// The SDK's internals the in-page tests and the tools benchmark exercise, as one
// module. test/run.mjs bundles it to /sdk/rtc-agent-internal.js, served next to
// the real sandbox.html with the bundle's headers, so the default sandbox URL
// (next to the module) is exercised as in production. The package's public
// entries (src/index.ts, src/headless.ts) export none of this.

export * from "../../src/vfs/index.js";
export * from "../../src/tools/index.js";
export * from "../../src/script/index.js";
export { bridgeWebMcp, hostToolName, resultOf } from "../../src/agent/webmcp.js";
export { requiredLiterals } from "../../src/tools/search/literals.js";
export { grepFiles } from "../../src/tools/search/engine.js";
