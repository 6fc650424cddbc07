const el = document.getElementById("agent");
el.style.height = "600px";
el.getToken = async () => (await fetch("/my-backend/rtc-agent-token")).text(); // a JWT for the user

const cart = new Map(); // sku → quantity
el.registerTool({
  name: "addToCart",
  description: "Adds a product to the cart.",
  parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
  execute: async ({ sku }) => {
    cart.set(sku, (cart.get(sku) ?? 0) + 1);
    return { added: sku, items: cart.size }; // string or JSON result for the model
  },
});
