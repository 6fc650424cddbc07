import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";

const variant = new URLSearchParams(location.search).get("ui") === "element" ? "element" : "headless";
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App variant={variant} />
  </StrictMode>,
);
