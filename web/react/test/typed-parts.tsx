// Compile-time only (`npm run typecheck`): useChat typed by a tool map from
// defineTool tools narrows each tool part's input and output by its name.

import { useChat } from "@rtc-agent/react";
import { defineTool, type InferToolTypes } from "@rtc-agent/web/headless";
import { z } from "zod";

const tools = [
  defineTool({ name: "bookFlight", description: "x", parameters: z.object({ city: z.string() }), execute: async ({ city }) => ({ booked: city }) }),
];

export function TypedParts() {
  const { messages, prompts } = useChat<InferToolTypes<typeof tools>>();
  const out: string[] = [];
  for (const m of messages) {
    for (const t of m.tools) {
      if (t.name === "bookFlight") {
        out.push(t.input.city, t.output?.booked ?? "");
        // @ts-expect-error: `citty` is not an argument of bookFlight
        out.push(t.input.citty);
      } else {
        // @ts-expect-error: another tool's input is unknown
        out.push(t.input.city);
      }
    }
  }
  for (const p of prompts) if (p.rtc.tool_name === "bookFlight") out.push(p.rtc.arguments.city);
  return <p>{out.join(" ")}</p>;
}
