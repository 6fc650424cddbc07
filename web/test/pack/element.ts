// The element from the packed tarball, bundled by the host's own build: importing
// `@rtc-agent/web/element` defines <rtc-agent>; the tool's arguments are typed.
import "@rtc-agent/web/element";
import { ReloginRequired } from "@rtc-agent/web";

const el = document.querySelector("rtc-agent")!; // an RtcAgentElement
// Bundled, the SDK's code is on this site, where no sandbox page is: scripts run in the server's.
el.options = { sandboxUrl: `${el.getAttribute("server-url")}/sdk/sandbox.html` };
el.getToken = async () => {
  const r = await fetch("/my-backend/rtc-agent-token");
  if (r.status === 401) throw new ReloginRequired("signed out");
  return r.text();
};
const cart: string[] = [];
el.registerTool({
  name: "addToCart",
  description: "Adds a product to the shopping cart.",
  parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
  execute: async ({ sku }) => {
    cart.push(sku.toUpperCase());
    return { added: sku, items: cart.length };
  },
});
