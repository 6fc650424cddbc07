// The element entry: importing it defines <rtc-agent> (in a browser), the chat UI
// around the headless agent. The package's main entry (dist/rtc-agent.js) is
// this one plus the whole headless API.

export { RtcAgentElement, defineElement } from "./ui/element.js";
