// The cart: a small store outside React (so the assistant's tools and the page
// share it), read in components with useSyncExternalStore.

import { useSyncExternalStore } from "react";
import { PRODUCTS, euros } from "./products.js";

export interface CartLine {
  productId: string;
  name: string;
  quantity: number;
  /** Euro cents for the line. */
  total: number;
}

export interface Order extends ReturnType<typeof cart.summary> {
  orderId: string;
}

let lines: CartLine[] = [];
let orders = 0;
const listeners = new Set<() => void>();
const set = (next: CartLine[]) => {
  lines = next;
  for (const l of listeners) l();
};

export const cart = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  lines: (): CartLine[] => lines,
  total: (): number => lines.reduce((sum, l) => sum + l.total, 0),

  add(productId: string, quantity: number): CartLine[] {
    const p = PRODUCTS.find((x) => x.id === productId);
    if (!p) throw new Error(`no product ${JSON.stringify(productId)}; call listProducts for the ids`);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 10) throw new Error("quantity must be a whole number from 1 to 10");
    const old = lines.find((l) => l.productId === productId);
    const q = (old?.quantity ?? 0) + quantity;
    const line = { productId, name: p.name, quantity: q, total: q * p.price };
    set(old ? lines.map((l) => (l === old ? line : l)) : [...lines, line]);
    return lines;
  },

  remove(productId: string): void {
    set(lines.filter((l) => l.productId !== productId));
  },

  /** What the assistant is told about the cart. */
  summary(): { lines: { productId: string; name: string; quantity: number; total: string }[]; total: string } {
    return { lines: lines.map((l) => ({ ...l, total: euros(l.total) })), total: euros(cart.total()) };
  },

  checkout(): Order {
    if (lines.length === 0) throw new Error("the cart is empty");
    const order = { orderId: `order-${++orders}`, ...cart.summary() };
    set([]);
    return order;
  },
};

export function useCart(): CartLine[] {
  return useSyncExternalStore(cart.subscribe, cart.lines);
}
