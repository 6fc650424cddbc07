// The shop itself: products and the cart. Nothing here knows about the assistant;
// it shares the cart with the assistant's tools.

import { cart, useCart } from "./cart.js";
import { PRODUCTS, euros } from "./products.js";

export function Catalog() {
  return (
    <section className="catalog" aria-label="Products">
      <h2>Products</h2>
      <ul>
        {PRODUCTS.map((p) => (
          <li key={p.id} data-product={p.id}>
            <strong>{p.name}</strong> <span className="price">{euros(p.price)}</span>
            <p>{p.description}</p>
            <button type="button" onClick={() => cart.add(p.id, 1)}>
              Add to cart
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Cart() {
  const lines = useCart();
  return (
    <section className="cart" aria-label="Cart">
      <h2>Cart</h2>
      {lines.length === 0 ? (
        <p className="empty">Your cart is empty.</p>
      ) : (
        <ul>
          {lines.map((l) => (
            <li key={l.productId} data-product={l.productId} data-quantity={l.quantity}>
              {l.quantity} × {l.name} <span className="price">{euros(l.total)}</span>
              <button type="button" aria-label={`Remove ${l.name}`} onClick={() => cart.remove(l.productId)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <p className="total">
        Total <span className="price">{euros(lines.reduce((s, l) => s + l.total, 0))}</span>
      </p>
    </section>
  );
}
