// Main entry of the RTC Agent browser SDK (dist/rtc-agent.js, `@rtc-agent/web` and
// `@rtc-agent/web/element`): importing it defines the <rtc-agent> custom element
// (when a browser has customElements) and exports the headless API with it.
// `@rtc-agent/web/headless` (src/headless.ts) is the same API without the UI.

export * from "./headless.js";
export * from "./element.js";
