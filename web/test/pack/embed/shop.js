// shop.js: runs after the page is parsed and the SDK has defined <rtc-agent>.
const el = document.querySelector("rtc-agent");
el.style.height = "600px"; // from script (CSSOM): a Content-Security-Policy blocks style="…" attributes

const cart = [];
el.registerTool({
  name: "addToCart",
  description: "Adds a product to the shopping cart.",
  parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
  execute: async ({ sku }) => {
    cart.push(sku);
    return { added: sku, items: cart.length }; // a string or JSON, for the model
  },
});
