// The shop's own question dialog, built from usePrompts(): the assistant asks
// before checkout (and before anything the work mode says to ask about), and may
// ask the customer a question (askUser). The first answer from any tab counts.

import { usePrompts } from "@rtc-agent/react";
import type { AskAnswer, Prompt } from "@rtc-agent/web/headless";
import { useState } from "react";
import { cart } from "./cart.js";

export function Approvals() {
  const { prompts, approve, deny, answer } = usePrompts();
  const p = prompts[0];
  if (!p) return null;
  return (
    <div className="backdrop">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="approval-title" data-tool={p.rtc.tool_name} data-kind={p.kind}>
        {p.kind === "confirm" ? (
          <>
            <h2 id="approval-title">{title(p)}</h2>
            <Details prompt={p} />
            <div className="actions">
              <button type="button" className="primary" onClick={() => approve(p.id)}>
                Approve
              </button>
              <button type="button" onClick={() => deny(p.id, "The customer declined.")}>
                Decline
              </button>
            </div>
          </>
        ) : (
          <Ask prompt={p} onAnswer={(answers) => answer(p.id, { type: "ask", answers })} />
        )}
      </div>
    </div>
  );
}

function title(p: Prompt): string {
  if (p.call) return `Allow the assistant's script to call ${p.call.tool}?`;
  if (p.rtc.tool_name === "checkout") return "Place this order?";
  return `Allow the assistant to run ${p.rtc.tool_name}?`;
}

function Details({ prompt }: { prompt: Prompt }) {
  if (prompt.rtc.tool_name === "checkout" && !prompt.call) {
    const s = cart.summary();
    return (
      <ul className="order">
        {s.lines.map((l) => (
          <li key={l.productId}>
            {l.quantity} × {l.name} {l.total}
          </li>
        ))}
        <li className="total">Total {s.total}</li>
      </ul>
    );
  }
  return <pre>{JSON.stringify(prompt.call?.args ?? prompt.rtc.arguments, null, 2)}</pre>;
}

function Ask({ prompt, onAnswer }: { prompt: Prompt; onAnswer: (a: AskAnswer[]) => void }) {
  const questions = prompt.questions ?? [];
  const [chosen, setChosen] = useState<Record<number, string[]>>({});
  const [typed, setTyped] = useState<Record<number, string>>({});
  const pick = (i: number, label: string, multi: boolean) =>
    setChosen((c) => ({ ...c, [i]: multi ? (c[i]?.includes(label) ? c[i].filter((x) => x !== label) : [...(c[i] ?? []), label]) : [label] }));
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer(questions.map((q, i) => ({ question: q.question, selected: chosen[i] ?? [], ...(typed[i] ? { other: typed[i] } : {}) })));
      }}
    >
      <h2 id="approval-title">The assistant asks</h2>
      {questions.map((q, i) => (
        <fieldset key={i}>
          <legend>{q.question}</legend>
          {q.options?.length ? null : (
            <input type="text" name={`q${i}`} aria-label={q.question} value={typed[i] ?? ""} onChange={(e) => setTyped((t) => ({ ...t, [i]: e.target.value }))} />
          )}
          {(q.options ?? []).map((o) => (
            <label key={o.label}>
              <input type={q.multiSelect ? "checkbox" : "radio"} name={`q${i}`} value={o.label} checked={chosen[i]?.includes(o.label) ?? false} onChange={() => pick(i, o.label, !!q.multiSelect)} /> {o.label}
              {o.description ? <small> {o.description}</small> : null}
            </label>
          ))}
        </fieldset>
      ))}
      <div className="actions">
        <button type="submit" className="primary">
          Send answer
        </button>
      </div>
    </form>
  );
}
