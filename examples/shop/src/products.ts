// The shop's catalogue (a real shop would load it from its backend).

export interface Product {
  id: string;
  name: string;
  /** Price in euro cents. */
  price: number;
  description: string;
}

export const PRODUCTS: readonly Product[] = [
  { id: "mug", name: "Enamel mug", price: 1200, description: "Blue enamel, 350 ml, survives campfires." },
  { id: "tote", name: "Canvas tote", price: 1800, description: "Heavy cotton canvas with a zipped inner pocket." },
  { id: "notebook", name: "Dot-grid notebook", price: 950, description: "A5, 160 pages of 100 g paper, lies flat." },
  { id: "pen", name: "Brass pen", price: 3400, description: "Solid brass, refillable, gets a patina." },
];

export const euros = (cents: number): string => `€${(cents / 100).toFixed(2)}`;
