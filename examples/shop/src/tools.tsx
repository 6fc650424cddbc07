// The shop's host tools: functions of this page the assistant may call. Each
// exists while <ShopTools/> is mounted. Reading the catalogue and filling the cart
// run without asking; checkout asks the customer first (needsApproval), and the
// question shows in <Approvals/>. A call of addToCart shows in the chat as the
// shop draws it (<AddedToCart/>, its `render`).

import { useTool } from "@rtc-agent/react";
import { defineTool, type InferToolTypes, type ToolView } from "@rtc-agent/web/headless";
import { cart } from "./cart.js";
import { PRODUCTS, euros } from "./products.js";

const none = { type: "object", properties: {}, additionalProperties: false } as const;
const addParams = {
  type: "object",
  properties: {
    productId: { type: "string", enum: ["mug", "tote", "notebook", "pen"], description: "The product's id from listProducts." },
    quantity: { type: "integer", minimum: 1, maximum: 10 },
  },
  required: ["productId", "quantity"],
  additionalProperties: false,
} as const;

// Made with defineTool, so the chat's tool parts know each tool's arguments
// and result (ShopToolTypes, the type argument of useChat in assistant.tsx).
const listProducts = defineTool({
  name: "listProducts",
  description: "Lists the shop's products: id, name, price and a short description.",
  parameters: none,
  needsApproval: false,
  execute: () => PRODUCTS.map((p) => ({ ...p, price: euros(p.price) })),
});
const addToCart = defineTool({
  name: "addToCart",
  description: "Adds a quantity of a product to the customer's cart and returns the cart.",
  parameters: addParams,
  needsApproval: false,
  // The arguments are checked against addParams before this runs, and typed from it.
  execute: ({ productId, quantity }) => {
    cart.add(productId, quantity);
    return cart.summary();
  },
});
const viewCart = defineTool({
  name: "viewCart",
  description: "Shows what is in the customer's cart and its total.",
  parameters: none,
  needsApproval: false,
  execute: () => cart.summary(),
});
const checkout = defineTool({
  name: "checkout",
  description: "Places the order for everything in the cart. The customer is asked to approve it first.",
  parameters: none,
  needsApproval: true,
  execute: () => cart.checkout(),
});

const shopTools = [listProducts, addToCart, viewCart, checkout];

/** The shop's tools by name: their arguments and results. */
export type ShopToolTypes = InferToolTypes<typeof shopTools>;

/** A call of addToCart in the chat's tool card: what is added, then the cart's total. */
function AddedToCart({ state, args, output }: ToolView<{ productId: string; quantity: number }, ReturnType<typeof cart.summary>>) {
  const name = PRODUCTS.find((p) => p.id === args?.productId)?.name ?? args?.productId ?? "…";
  return (
    <p className="added">
      {args?.quantity ?? "?"} × {name}
      {state === "done" && output ? ` added: the cart is ${output.total}` : ""}
    </p>
  );
}

export function ShopTools(): null {
  useTool(listProducts);
  useTool({ ...addToCart, render: (view) => <AddedToCart {...view} /> });
  useTool(viewCart);
  useTool(checkout);
  return null;
}
