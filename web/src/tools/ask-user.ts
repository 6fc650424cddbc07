import type { ToolSpec } from "./types.js";

/**
 * `askUser` is answered by the user, not by code: the UI shows the questions and
 * submits the answers, so the registry holds only its spec.
 */
export const askUserSpec: ToolSpec = {
  name: "askUser",
  kind: "ask",
  description:
    "Ask the user 1-4 multiple-choice questions and wait for the answers. Each question offers 2-4 options; " +
    "the user may also type a different answer. Use it when a decision needs the user's preference or " +
    "information only they have, not for confirmation of tool calls.",
  parameters: {
    type: "object",
    properties: {
      questions: {
        type: "array",
        minItems: 1,
        maxItems: 4,
        items: {
          type: "object",
          properties: {
            question: { type: "string", minLength: 1, description: "The full question, ending with a question mark." },
            header: { type: "string", maxLength: 12, description: "Very short label shown as a tag, e.g. 'Format'." },
            options: {
              type: "array",
              minItems: 2,
              maxItems: 4,
              items: {
                type: "object",
                properties: {
                  label: { type: "string", minLength: 1, description: "The choice as shown (1-5 words)." },
                  description: { type: "string", description: "What choosing it means." },
                },
                required: ["label"],
                additionalProperties: false,
              },
            },
            multiSelect: { type: "boolean", default: false, description: "Allow choosing several options." },
          },
          required: ["question", "options"],
          additionalProperties: false,
        },
      },
    },
    required: ["questions"],
    additionalProperties: false,
  },
};
